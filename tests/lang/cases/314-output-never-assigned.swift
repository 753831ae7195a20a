// Every output of a function must be assigned.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4
(int o, int never_set) f(int i) {
  o = i;
}
trace(f(1));
