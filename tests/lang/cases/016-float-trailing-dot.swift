// A float literal cannot end with a dot.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4
float f = 1.;
trace(f);
