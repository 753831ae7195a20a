// `k = k;` waits for itself: a compile error naming the variable (§13).
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 6:1
// STDERR: 'k'
int k;
k = k;
trace(k);
