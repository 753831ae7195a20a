// wait (A) runs after the array closes.
int A[];
foreach i in [1:4] {
  A[i] = i;
}
wait (A) {
  trace("closed", size(A));
}
