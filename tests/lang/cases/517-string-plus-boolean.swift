// + does not take a boolean.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4
string s = "flag=" + true;
trace(s);
