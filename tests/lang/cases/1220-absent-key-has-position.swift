// Reading an element the closed array lacks is a run-time error naming where it was read.
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: 1220-absent-key-has-position.swift:7: array 'A' has no element [3]
int A[];
A[0] = 1;
int k = toint("3");
trace(A[k]);
