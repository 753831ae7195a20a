// int x = 2**3; is a compile error.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4
int x = 2**3;
trace(x);
