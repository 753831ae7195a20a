// The body sees each iteration's instances.
for (int i = 1, int sq = 1; i <= 3; i = i + 1, sq = (i + 1) * (i + 1)) {
  trace(i, sq);
}
