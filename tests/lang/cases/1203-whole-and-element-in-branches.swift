// An array written whole in one branch and by element in the other is legal (§12).
int A[];
boolean b = false;
if (b) { A = [1, 2, 3]; } else { A[0] = 5; A[1] = 6; }
trace(size(A), A[1]);
