// An #ifdef without #endif is a compile error.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4:1
#ifdef X
trace(1);
