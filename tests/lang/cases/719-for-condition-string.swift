// A for condition must be boolean or int.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4:1 or 4:17
for (int i = 0; "go"; i = i + 1) {
  trace(i);
}
