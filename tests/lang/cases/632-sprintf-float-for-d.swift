// %d of a float is a run-time error.
// THIS-TEST-SHOULD-NOT-RUN
import string;
trace(sprintf("%d", 2.5));
