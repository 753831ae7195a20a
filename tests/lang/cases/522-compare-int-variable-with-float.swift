// An int variable is not converted to float for comparison.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 6:7 or 6:9 or 6:11
int i = 1;
float f = 2.0;
trace(i < f);
