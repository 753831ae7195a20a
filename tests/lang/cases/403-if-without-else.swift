// if without else.
int n = toint("1");
if (n == 2) {
  trace("not printed");
}
if (n == 1) {
  trace("printed");
}
