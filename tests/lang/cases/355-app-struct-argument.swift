// A struct is not a valid app argument.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 7:18 or 7:20 or 8:10
type P {
  int x;
}
app (file o) bad(P p) {
  "echo" p @stdout=o
}
file f = bad(P(1));
