// Line comments run to the end of the line, also after code.
// a whole-line comment
int x = 1; // a trailing comment
// trace("never printed");
trace(x); // done
