// #ifdef is not supported.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 6:1
// STDERR: unsupported feature
trace(1);
#ifdef DEBUG
trace(2);
#endif
