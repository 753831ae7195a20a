// A foreach variable may not shadow a visible local.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 6:3 or 6:11
main {
  int i = 0;
  foreach i in [1:3] {
    trace(i);
  }
  trace(i);
}
