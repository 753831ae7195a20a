// assertEqual reports floats in text form.
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: Assertion failed 1.5 != 2.0: floats
import assert;
assertEqual(1.5, 2.0, "floats");
