// A local may not redeclare a parameter.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:3 or 5:7
(int o) f(int i) {
  int i = 2;
  o = i;
}
trace(f(1));
