// Integer division by zero is a run-time error naming where it happened.
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: 1217-divide-by-zero-has-position.swift:5: divide by zero
int z = toint("0");
trace(7 %/ z);
