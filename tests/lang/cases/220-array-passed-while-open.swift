// An array passed to a function is read after it closes.
import stats;
(int s) total(int A[]) {
  s = sum_integer(A);
}
int A[];
trace(total(A));
foreach i in [1:4] {
  A[i] = i;
}
