// input_url is not supported.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:10
// STDERR: unsupported feature
file f = input_url("http://example.org/x");
