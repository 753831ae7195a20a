// An unmapped app output gets a new path in $SWIFT_TMP ending in .turbine.
import files;
import sys;
app (file o) hello() {
  "echo" "x" @stdout=o
}
file t = hello();
trace(extension(t), dirname(t) == getenv("SWIFT_TMP"));
