// Defining a type twice is a compile error.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 7:1 or 7:6
type P {
  int x;
}
type P {
  int y;
}
