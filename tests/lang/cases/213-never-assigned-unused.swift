// A never-assigned variable that nothing needs is not an error.
int never;
string also_never;
trace("fine");
