// Range bounds and step may be any int expressions.
int lo = 2, hi = 6;
foreach v in [lo:hi:2] {
  trace(v);
}
