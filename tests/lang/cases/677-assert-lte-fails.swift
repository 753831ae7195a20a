// assertLTE reports A > B.
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: Assertion failed 5 > 2: lte
import assert;
assertLTE(5, 2, "lte");
