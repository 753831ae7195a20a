// Whole and element writes in separate ifs that both run: a run-time double assignment (§12).
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: double assignment
int A[];
boolean c = true;
if (c) { A = [1]; }
if (c) { A[3] = 5; }
trace(size(A));
