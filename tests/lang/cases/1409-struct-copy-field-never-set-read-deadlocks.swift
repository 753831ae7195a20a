// Reading a field of a copy whose original field is never set waits forever: a deadlock at
// run time, naming the field (the copy may write it, so it compiles).
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: deadlock
// STDERR: q.b
type P { int a; int b; }
P p;
p.a = 1;
if (p.a == 2) {
  p.b = 2;
}
P q = p;
trace(q.b);
