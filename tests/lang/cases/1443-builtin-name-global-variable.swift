// A global variable may not take the name of a builtin (§13).
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5
// STDERR: 'strcat'
string strcat = "x";
trace(strcat);
