// A nested field assigned twice is a certain double assignment: a compile error.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 8:1
type In { int x; }
type R { In inner; }
R r;
r.inner.x = 1;
r.inner.x = 2;
trace(r.inner.x);
