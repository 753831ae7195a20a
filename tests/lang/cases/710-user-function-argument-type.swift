// Passing a string for an int parameter is a compile error.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 7:7 or 7:11
(int o) inc(int i) {
  o = i + 1;
}
trace(inc("one"));
