// foreach over an array waits for it to close, even if written later.
int A[];
foreach v in A {
  trace(v);
}
foreach i in [1:3] {
  A[i] = i * 100;
}
