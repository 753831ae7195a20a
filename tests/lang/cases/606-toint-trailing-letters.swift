// toint of digits followed by letters is a run-time error.
// THIS-TEST-SHOULD-NOT-RUN
trace(toint("12b"));
