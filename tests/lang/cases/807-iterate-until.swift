// iterate ... until is not supported.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:1
// STDERR: unsupported feature
iterate i {
  trace(i);
} until (i > 3);
