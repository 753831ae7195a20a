// Preprocessor directives other than #include are not supported.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:1
// STDERR: unsupported feature
#define LIMIT 10
trace(1);
