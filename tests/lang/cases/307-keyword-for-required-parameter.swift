// Keywords are only for optional parameters.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 7:7 or 7:11
(int o) inc(int i, int step = 1) {
  o = i + step;
}
trace(inc(i=1));
