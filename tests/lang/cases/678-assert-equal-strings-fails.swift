// assertEqual on strings.
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: Assertion failed left != right: strings
import assert;
assertEqual("left", "right", "strings");
