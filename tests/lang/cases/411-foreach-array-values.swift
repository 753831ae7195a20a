// foreach over the values of an array literal.
foreach w in ["ant", "bee", "cat"] {
  trace(w);
}
