// A variable must be declared textually before it is referenced.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4:7
trace(later);
int later = 3;
