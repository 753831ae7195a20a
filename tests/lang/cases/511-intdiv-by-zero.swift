// %/ by zero is a run-time error.
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: divide by zero
int z = toint("0");
trace(10 %/ z);
