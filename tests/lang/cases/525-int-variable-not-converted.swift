// An int variable never converts to float implicitly.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5
int i = 3;
float f = i;
trace(f);
