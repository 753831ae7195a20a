// += is not supported.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 6:1 or 6:3
// STDERR: unsupported feature
int x = 1;
x += 2;
