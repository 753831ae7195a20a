// A struct is closed when all its fields are: `wait` on a copy starts only after its last
// field was passed on (§13).
// ORDERED
type P { int a; int b; }
P p;
P q = p;
p.a = 1;
wait (q) {
  trace("closed", q.a, q.b);
}
wait (q.a) {
  trace("a") => p.b = 2;
}
