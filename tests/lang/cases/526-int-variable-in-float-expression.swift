// float * int variable is a compile error.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:7 or 5:11 or 5:13
int i = 3;
trace(2.5 * i);
