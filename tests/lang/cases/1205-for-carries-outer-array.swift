// A for loop carrying an array declared outside takes its final value after the loop (§6, §12).
int A[];
for (A = [1, 2], int i = 0; i < 3; A = A2, i = i + 1) {
  int A2[];
  foreach v, k in A { A2[k] = v * 2; }
}
trace(size(A), A[0], A[1]);
