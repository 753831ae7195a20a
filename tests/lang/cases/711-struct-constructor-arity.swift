// A struct constructor needs one value per field.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 8:7 or 8:9
type P {
  int x;
  int y;
}
P p = P(1);
trace(p.x);
