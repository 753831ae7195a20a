// f(x); as a statement discards the outputs.
(int q, int r) qr(int a, int b) {
  trace("qr called", a, b);
  q = a %/ b;
  r = a %% b;
}
qr(7, 2);
