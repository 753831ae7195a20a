// An undefined function is a compile error at the call.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:1
int x = 1;
nosuchfunc(x);
