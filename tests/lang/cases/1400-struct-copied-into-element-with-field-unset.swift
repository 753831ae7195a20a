// A struct copied into an array element while one of its fields is never set: reading the
// other field gets its value (§13: a copy passes each field on as it closes, never waiting
// for the others), and a field that nothing reads may stay unset.
type P { int a; int b; }
P p;
p.a = 1;
P A[];
A[0] = p;
trace(A[0].a);
