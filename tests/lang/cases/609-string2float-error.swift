// A string that is not a number is a run-time error.
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: string2float(): could not convert string 'abc' to float
trace(string2float("abc"));
