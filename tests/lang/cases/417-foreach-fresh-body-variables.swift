// Each iteration has fresh body variables.
foreach i in [1:3] {
  int sq = i * i;
  trace(i, sq);
}
