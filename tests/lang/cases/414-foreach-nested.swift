// Nested foreach loops.
foreach a in [1:2] {
  foreach b in [1:3] {
    trace(a, b, a * b);
  }
}
