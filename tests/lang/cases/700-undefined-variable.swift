// An undefined variable is a compile error at its use.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:10
int x = 1;
trace(x, nosuch);
