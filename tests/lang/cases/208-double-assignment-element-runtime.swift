// Writing one array element twice (not provable statically) is a run-time error.
// THIS-TEST-SHOULD-NOT-RUN
int A[];
int k = toint("3");
A[k] = 1;
A[3] = 2;
trace(size(A));
