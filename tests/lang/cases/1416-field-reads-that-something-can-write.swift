// A field read compiles when some statement can write it: in a branch, through a whole
// struct field, by a whole assignment, or inside a function for a global.
type In { int x; int y; }
type R { In inner; int c; }
R r;
if (toint("1") == 1) {
  r.c = 1;
} else {
  r.c = 2;
}
In i = In(3, 4);
r.inner = i;
R s = r;
R g;
g.c = 9;
(int o) readg() {
  o = g.c;
}
trace(r.c, r.inner.y, s.inner.x, readg());
