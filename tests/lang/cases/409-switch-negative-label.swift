// Case labels are non-negative integer literals.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:3 or 5:8
switch (toint("1")) {
  case -1:
    trace("a");
}
