// A float is not assignable to an int.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4
int n = 2.5;
trace(n);
