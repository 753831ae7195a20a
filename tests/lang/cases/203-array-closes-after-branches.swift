// An array written in branches closes after the taken branch.
int A[];
int flag = toint("1");
if (flag == 1) {
  A[0] = 10;
  A[1] = 11;
} else {
  A[5] = 0;
}
trace(size(A));
