// Struct elements of an array built by a function returning a struct with an array field.
type P { int a; int vals[]; }
(P o) mk(int i) { o.a = i; o.vals = [i, i + 1]; }
P arr[];
foreach i in [0:2] { arr[i] = mk(i); }
trace(arr[1].a, arr[2].vals[1]);
