// A string is not a condition.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4:1 or 4:5
if ("yes") {
  trace("x");
}
