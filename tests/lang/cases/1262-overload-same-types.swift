// Two definitions with the same parameter types are a compile error.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:1
(int o) f(int x) { o = x; }
(int o) f(int y) { o = y; }
trace(f(1));
