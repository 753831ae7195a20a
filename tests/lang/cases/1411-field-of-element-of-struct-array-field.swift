// A field of an element of a struct's array field is a field of an array element too: a
// compile error (§13).
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 8:1
type P { int x; }
type R { P L[]; }
R r;
r.L[0].x = 1;
trace(size(r.L));
