// An unterminated string is a compile error at its opening quote.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:7
int x = 1;
trace("abc);
