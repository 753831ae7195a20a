// An unmapped file from write() gets a .turbine path in $SWIFT_TMP.
import files;
import sys;
file t = write("x");
trace(extension(t), dirname(t) == getenv("SWIFT_TMP"));
