// getenv reads the environment; unset gives an empty string.
// ENV: GREETING_TEST=hello there
import sys;
trace(getenv("GREETING_TEST"), "[" + getenv("SURELY_UNSET_XYZZY_42") + "]");
