// Duplicate case labels are a compile error.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 7:3 or 7:8
switch (toint("1")) {
  case 2:
    trace("a");
  case 2:
    trace("b");
}
