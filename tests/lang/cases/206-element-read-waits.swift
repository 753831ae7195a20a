// A[k] waits for element k to be written.
int A[];
trace(A[3]);
foreach i in [0:5] {
  A[i] = i * i;
}
