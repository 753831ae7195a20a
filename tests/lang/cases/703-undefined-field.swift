// Reading a field the struct lacks is a compile error.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 9:7 or 9:9
type P {
  int x;
}
P p;
p.x = 1;
trace(p.y);
