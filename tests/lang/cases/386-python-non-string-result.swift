// A python() expression that is not a str is a run-time error.
// THIS-TEST-SHOULD-NOT-RUN
import python;
trace(python("", "42"));
