// Separate ifs that are both true write twice: a run-time error (§12, §9).
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: x
int x;
int c = 1;
if (c == 1) { x = 1; }
if (c > 0) { x = 2; }
trace(x);
