// Ranges are keyed from 0.
foreach v, k in [10:12] {
  trace(k, v);
}
