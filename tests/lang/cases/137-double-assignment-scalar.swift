// Assigning a scalar twice is a compile error when certain.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:1
int x = 1;
x = 2;
trace(x);
