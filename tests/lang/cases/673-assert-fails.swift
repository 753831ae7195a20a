// assert(false, msg) fails with 'Assertion failed!: msg'.
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: Assertion failed!: custom message
import assert;
assert(false, "custom message");
