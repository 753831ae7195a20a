// Redeclaring a visible local in an inner block is a compile error.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 7:5 or 7:9
main {
  int x = 1;
  if (x > 0) {
    int x = 2;
    trace(x);
  }
}
