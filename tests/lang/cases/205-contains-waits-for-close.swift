// contains() waits for the array to close.
int A[];
foreach i in [1:3] {
  A[i * 2] = i;
}
trace(contains(A, 4), contains(A, 5));
