// Elements of array fields of a struct output are written by index, whatever the index
// depth of the other fields (§13; issue 31: refused as "two different index depths").
type In { int A[]; int B[]; }
type R { In X; int C[]; int M[][]; }
(int o) g() {
  o = 3;
}
(R r) f() {
  r.X.A[0] = r.X.B[0];
  r.X.B[0] = 5;
  r.C[g() - 2] = 7;
  r.M[0][1] = 4;
}
R res = f();
trace(res.X.A[0], res.C[1], res.M[0][1], size(res.X.B));
