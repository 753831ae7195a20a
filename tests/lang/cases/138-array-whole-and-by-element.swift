// An array assigned whole cannot also be assigned by element.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:1
int A[] = [1, 2];
A[2] = 3;
trace(size(A));
