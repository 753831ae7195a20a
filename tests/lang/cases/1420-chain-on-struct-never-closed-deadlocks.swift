// A chain after a struct copy whose field never closes never goes on: a deadlock (§12, §13),
// while the field that did close is passed on.
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: deadlock
// STDERR: line 9
type P { int a; int b; }
P p;
P q;
q = p => trace("never");
p.a = 1;
trace(q.a);
