// Inputs are read-only.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:3
(int o) f(int i) {
  i = 2;
  o = 1;
}
trace(f(1));
