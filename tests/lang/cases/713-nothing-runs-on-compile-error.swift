// The whole program is checked before anything runs.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 6:1
trace("must not print");
int x = 1;
x = 2;
