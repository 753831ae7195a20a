// An if condition must be boolean or int.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4:1 or 4:5
if (1.5) {
  trace("x");
}
