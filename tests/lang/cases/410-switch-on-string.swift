// switch needs an int.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4:1 or 4:9
switch ("a") {
  case 1:
    trace("a");
}
