// An unknown keyword argument is a compile error.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 7:7 or 7:14
(int o) inc(int i, int step = 1) {
  o = i + step;
}
trace(inc(1, stride=2));
