// Assigning an int to a string is a compile error.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4
string s = 5;
trace(s);
