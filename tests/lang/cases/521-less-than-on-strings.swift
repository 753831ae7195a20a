// < does not take strings.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4:7 or 4:11 or 4:13
trace("a" < "b");
