// toint of an empty string is a run-time error.
// THIS-TEST-SHOULD-NOT-RUN
trace(toint(""));
