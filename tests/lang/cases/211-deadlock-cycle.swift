// A dependency cycle deadlocks: reported on stderr, exit 1.
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: alpha
// STDERR: beta
// STDERR: 211-deadlock-cycle.swift:
int alpha, beta;
alpha = beta + 1;
beta = alpha + 1;
trace(alpha);
