// A chain's declarations belong to the enclosing scope: redeclaring one is a compile error (§6, §12).
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:5
int y = 1 => trace(y);
int y = 2;
