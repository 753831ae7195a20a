// A reserved word cannot name a variable.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4:5
int wait = 3;
