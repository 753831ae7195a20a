// Flags and positionals from the command line.
// ARGS: --n=5 -v in.txt
import sys;
trace(argv("n"), argv_contains("v"), argc(), argp(1), argv("v") == "", argv_contains("w"));
