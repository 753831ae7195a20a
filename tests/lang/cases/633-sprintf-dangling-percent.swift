// A dangling % is a run-time error.
// THIS-TEST-SHOULD-NOT-RUN
import string;
trace(sprintf("50%"));
