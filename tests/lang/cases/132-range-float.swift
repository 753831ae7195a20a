// A range with float bounds holds floats.
foreach v in [0.0:1.0:0.25] {
  trace(v);
}
