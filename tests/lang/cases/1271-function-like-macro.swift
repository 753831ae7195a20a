// Function-like macros are not supported (§12: object-like only).
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:1
// STDERR: unsupported feature
#define SQ(x) ((x) * (x))
trace(1);
