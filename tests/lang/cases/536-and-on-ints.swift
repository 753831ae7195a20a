// && takes booleans only.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4:7 or 4:9 or 4:12
trace(1 && 0);
