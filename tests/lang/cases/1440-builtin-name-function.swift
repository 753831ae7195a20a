// A user function may not take the name of a builtin (§13): the error names it.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5
// STDERR: 'trace'
(int x) trace (int y) {
  x = y;
}
