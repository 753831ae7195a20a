// A struct passed to a composite function, and copied to its output, passes each field on
// as it closes: the caller builds a field of the argument from the function's results (§13).
type P { int a; int b; }
(int v) first(P i) {
  v = i.a;
}
(P o) same(P i) {
  o = i;
}
P p;
P q = same(p);
int x = first(p);
p.a = 5;
p.b = x + q.a;
trace(q.a, q.b);
