// Two overloads reachable only by promotion: a compile error naming the candidates (§12).
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 7:7
// STDERR: candidates
(int o) h(int x, float y) { o = 1; }
(int o) h(float x, int y) { o = 2; }
trace(h(1, 2));
