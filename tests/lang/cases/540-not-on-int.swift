// ! takes a boolean.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:7 or 5:8
int k = 1;
trace(!k);
