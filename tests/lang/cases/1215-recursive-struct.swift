// A struct that contains itself (not through an array) is a compile error.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4:1
type P { int a; P next; }
P p;
p.a = 1;
trace(p.a);
