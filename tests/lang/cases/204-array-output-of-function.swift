// An array output filled by a loop inside the callee.
(int A[]) fill(int n) {
  foreach i in [0:n - 1] {
    A[i] = i * i;
  }
}
int B[] = fill(4);
trace(size(B), B[3]);
