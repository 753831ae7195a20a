// An int condition is true when it is not zero.
if (2) {
  trace("two is true");
}
if (0) {
  trace("zero is true");
} else {
  trace("zero is false");
}
int k = toint("-1");
if (k) {
  trace("minus one is true");
}
