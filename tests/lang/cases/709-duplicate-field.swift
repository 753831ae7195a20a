// A struct field declared twice is a compile error.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 6:3 or 6:7
type P {
  int a;
  int a;
}
