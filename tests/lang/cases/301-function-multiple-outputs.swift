// Multiple outputs, assigned with and without parentheses.
(int q, int r) qr(int a, int b) {
  q = a %/ b;
  r = a %% b;
}
int q, r;
q, r = qr(7, 2);
int q2, r2;
(q2, r2) = qr(-7, 2);
trace(q, r, q2, r2);
