// A variable alone is not a statement; only a chain waits on a variable (§13).
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:1
void a = trace("x");
a;
