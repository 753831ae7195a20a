// stats of an empty array is a run-time error (no mean exists).
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: stats
import stats;
float A[];
float m, s;
m, s = stats(A);
trace(m, s);
