// argp past argc() without default is a run-time error.
// THIS-TEST-SHOULD-NOT-RUN
// ARGS: only
import sys;
trace(argp(3));
