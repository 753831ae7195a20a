// A global constant may not take the name of a builtin (§13).
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5
// STDERR: 'trace'
global const int trace = 1;
