// Checkpointing is not supported.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:1 or 5:2
// STDERR: unsupported feature
@checkpoint (int o) f(int i) {
  o = i;
}
trace(f(1));
