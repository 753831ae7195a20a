// A local variable may hide a global function.
(int o) twice(int i) {
  o = i * 2;
}
main {
  int twice = 7;
  trace(twice);
}
trace(twice(4));
