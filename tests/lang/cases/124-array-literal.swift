// Array literals are keyed 0..n-1.
int A[] = [3, 1, 2];
trace(A[0], A[2], size(A));
