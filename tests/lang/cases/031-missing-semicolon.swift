// A missing semicolon is reported at the next token.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:1
int x = 1
trace(x);
