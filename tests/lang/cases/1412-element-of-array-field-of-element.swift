// Writing into an array field of an array element (`A[i].xs[j] = e`) writes a field of the
// element: a compile error, even nested in a struct field (§13).
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 9:1
type In { int xs[]; }
type P { In inner; }
P A[];
A[0] = P(In([1]));
A[1].inner.xs[0] = 2;
trace(size(A));
