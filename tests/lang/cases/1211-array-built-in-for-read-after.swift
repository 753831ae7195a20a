// An array built element by element in a for loop is read after the loop.
int A[];
for (int i = 0; i < 4; i = i + 1) { A[i] = i * i; }
trace(size(A), A[3]);
