// An integer literal beyond signed 64-bit is a compile error.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4:11
int big = 9223372036854775808;
trace(big);
