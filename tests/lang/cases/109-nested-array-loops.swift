// Nested arrays filled by nested loops.
int grid[][];
foreach r in [0:2] {
  foreach c in [0:1] {
    grid[r][c] = r * 10 + c;
  }
}
foreach row, r in grid {
  trace(r, size(row), row[1]);
}
