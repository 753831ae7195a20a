// A float literal cannot start with a dot.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4:11
float f = .5;
trace(f);
