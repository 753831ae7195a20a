// bag<T> stays out of scope in v1.1 (§12).
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4:1 or 4:4
bag<int> b;
trace(1);
