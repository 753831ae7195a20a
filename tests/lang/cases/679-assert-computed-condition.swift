// An assertion on a computed value.
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: Assertion failed!: n must be odd
import assert;
int n = toint("4");
assert(n %% 2 == 1, "n must be odd");
