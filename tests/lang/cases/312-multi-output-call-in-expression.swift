// Only single-output calls go inside expressions.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 8:7
(int q, int r) qr(int a, int b) {
  q = a %/ b;
  r = a %% b;
}
trace(qr(7, 2));
