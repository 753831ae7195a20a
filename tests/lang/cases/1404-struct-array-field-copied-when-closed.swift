// An array field of a copied struct is passed on when it closes, while another field of
// the original still waits for it (§13).
type In { int v; int xs[]; }
type R { In inner; string s; }
R r;
r.s = "s";
r.inner.xs[0] = 1;
r.inner.xs[1] = 4;
R A[];
A[0] = r;
r.inner.v = size(A[0].inner.xs) + A[0].inner.xs[1];
trace(A[0].inner.v, A[0].s);
