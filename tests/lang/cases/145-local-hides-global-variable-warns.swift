// A local may hide a global variable, with a warning.
// STDERR: warning:
int level = 1;
main {
  int level = 2;
  trace(level);
}
trace(level);
