// An undefined type is a compile error.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4:1
nosuchtype x;
trace("x");
