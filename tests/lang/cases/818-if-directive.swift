// #if (an expression condition) is not supported: only #ifdef and #ifndef are.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 6:1
// STDERR: unsupported feature: preprocessor directive #if
trace(1);
#if DEBUG
trace(2);
#endif
