// %/ takes ints only.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4:7 or 4:11 or 4:14
trace(7.0 %/ 2.0);
