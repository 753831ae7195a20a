// A struct with a field that never closes is never closed: a statement waiting for the
// whole struct is a deadlock (§4, §13).
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: deadlock
type P { int a; int b; }
P p;
p.a = 1;
P q = p;
wait (q) {
  trace("never");
}
trace(q.a);
