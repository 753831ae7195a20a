// Defining a function twice is a compile error.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 7:1 or 7:9
(int o) f(int i) {
  o = i;
}
(int o) f(int i) {
  o = i + 1;
}
trace(f(1));
