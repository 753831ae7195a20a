// A chain's next link starts only once the struct its first link assigns is closed, every
// field passed on (§12, §13).
// ORDERED
type P { int a; int b; }
P p;
P q;
p.a = 1;
q = p => trace("after");
wait (q.a) {
  trace("a") => p.b = 2;
}
