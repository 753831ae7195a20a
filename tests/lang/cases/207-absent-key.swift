// Reading a key the closed array lacks is a run-time error.
// THIS-TEST-SHOULD-NOT-RUN
int A[];
A[0] = 1;
trace(A[1]);
