// Writing a field of an array element is a compile error: assign a whole struct to the
// element (§13; issue 31: it ran, and failed later).
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 9:1
type P { int a; int b; }
P A[];
int i = toint("0");
A[i] = P(1, 2);
A[i + 1].a = 3;
trace(A[0].a);
