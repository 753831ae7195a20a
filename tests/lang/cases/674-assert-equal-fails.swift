// assertEqual reports both values.
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: Assertion failed 3 != 4: numbers differ
import assert;
assertEqual(3, 4, "numbers differ");
