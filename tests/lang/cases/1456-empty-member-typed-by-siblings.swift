// `[]` inside an array literal takes its type from its siblings (§13).
B = [[], [3.5, 4.5]];
int C[][] = [[], []];
trace(size(B), size(B[0]), size(B[1]), size(C), size(C[1]));
foreach v in B[1] {
  trace(v);
}
