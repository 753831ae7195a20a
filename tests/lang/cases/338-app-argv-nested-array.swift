// Nested arrays flatten into argv recursively, in key order.
// ORDERED
app (void v) show(int M[][]) {
  "printf" "%s\n" M
}
int M[][];
M[1][0] = 3;
M[0][1] = 2;
M[0][0] = 1;
M[1][5] = 4;
show(M);
