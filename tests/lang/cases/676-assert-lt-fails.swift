// assertLT reports A >= B.
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: Assertion failed 5 >= 2: lt
import assert;
assertLT(5, 2, "lt");
