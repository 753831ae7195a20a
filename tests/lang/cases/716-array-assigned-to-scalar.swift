// An array is not assignable to a scalar.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5
int A[] = [1];
int x = A;
trace(x);
