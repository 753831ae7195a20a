// Union types in user code are not supported.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:13 or 5:16
// STDERR: unsupported feature
(float o) f(int|float i) {
  o = 1.0;
}
