// Locals of different functions do not clash.
(int o) f() {
  int tmp = 1;
  o = tmp;
}
(int o) g() {
  int tmp = 2;
  o = tmp;
}
trace(f(), g());
