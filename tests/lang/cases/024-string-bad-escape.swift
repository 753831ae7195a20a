// An unknown escape is a compile error (at the string or at the escape).
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4:12 or 4:17
string s = "bad \q escape";
trace(s);
