// argv_accept passes when every flag is listed.
// ARGS: --n=1 -v
import sys;
argv_accept("n", "v", "extra");
trace(argv("n"));
