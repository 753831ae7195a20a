// tofloat of an empty string is a run-time error.
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: could not convert string '' to float
trace(tofloat(""));
