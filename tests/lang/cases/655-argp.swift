// argp(0) is the script; argp with a default.
// ARGS: alpha --x=1 beta
import sys;
import files;
trace(argc(), argp(1), argp(2), argp(3, "none"), basename_string(argp(0)));
