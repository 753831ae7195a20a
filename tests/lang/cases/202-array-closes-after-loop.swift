// An array closes once the loop writing it has finished.
import stats;
int A[];
foreach i in [1:5] {
  A[i] = i * 10;
}
trace(size(A), sum_integer(A));
