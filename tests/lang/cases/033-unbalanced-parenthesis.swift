// A syntax error is reported at the unexpected token.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4:15
int x = (1 + 2;
trace(x);
