// Calling with too few arguments is a compile error.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 9:8
(int q, int r) qr(int a, int b) {
  q = a %/ b;
  r = a %% b;
}
int q, r;
q, r = qr(7);
