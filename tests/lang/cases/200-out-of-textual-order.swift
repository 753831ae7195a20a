// A statement waits for a value assigned textually later.
int x;
int y = x * 2;
x = 3 + 4;
trace(y);
