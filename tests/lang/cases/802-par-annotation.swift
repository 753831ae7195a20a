// @par parallel tasks are not supported.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 8:9 or 8:10
// STDERR: unsupported feature
(int o) f(int i) {
  o = i;
}
int x = @par=4 f(1);
trace(x);
