// A nested field that nothing writes: "read but never assigned", the whole field path named;
// its sibling, written, is fine (§13).
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 10:10
// STDERR: r.inner.y
type In { int x; int y; }
type R { In inner; }
R r;
r.inner.x = 1;
trace(1, r.inner.y, r.inner.x);
