// Calling with too many arguments is a compile error.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 7:7 or 7:14
(int o) inc(int i) {
  o = i + 1;
}
trace(inc(1, 2));
