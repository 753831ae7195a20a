// args() joins all script arguments with spaces.
// ARGS: --n=5 -v in.txt
import sys;
trace(args());
