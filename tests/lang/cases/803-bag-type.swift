// bag<T> is not supported.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:1
// STDERR: unsupported feature
bag<int> b;
