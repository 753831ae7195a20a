// trace takes scalars, not arrays.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:1 or 5:7
int A[] = [1, 2];
trace(A);
