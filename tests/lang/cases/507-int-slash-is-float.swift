// / gives a float, so int x = 5/2; is a compile error.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4
int x = 5/2;
trace(x);
