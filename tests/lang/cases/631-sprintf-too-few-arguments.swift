// Too few arguments for the format is a run-time error.
// THIS-TEST-SHOULD-NOT-RUN
import string;
trace(sprintf("%d %d", 1));
