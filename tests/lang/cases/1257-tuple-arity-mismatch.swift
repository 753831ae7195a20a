// A tuple with more values than targets is a compile error.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4
a, b = (1, 2, 3);
trace(a, b);
