// - does not take strings.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4:7 or 4:12 or 4:14
trace("ab" - "b");
