// argv_accept fails on a flag it does not list.
// THIS-TEST-SHOULD-NOT-RUN
// ARGS: --n=1 --bogus=2
import sys;
argv_accept("n");
trace(argv("n"));
