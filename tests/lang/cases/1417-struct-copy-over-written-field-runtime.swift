// A struct copied over a struct whose array field was already assigned (in separate ifs,
// legal statically, §12): a double assignment at run time, not a crash.
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: double assignment
type P { int a; int xs[]; }
P p = P(1, [2]);
P q;
if (toint("1") == 1) {
  q.xs = [3];
}
if (toint("2") == 2) {
  q = p;
}
trace(q.a);
