// An int key for a string-keyed array is a compile error.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:1 or 5:3
int A[string];
A[1] = 2;
trace(size(A));
