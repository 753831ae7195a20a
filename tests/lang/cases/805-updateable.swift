// Updateable variables are not supported.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:1
// STDERR: unsupported feature
updateable_float u = 1.0;
trace("x");
