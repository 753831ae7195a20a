// A block opens a scope that sees the enclosing names.
main {
  int outer = 5;
  {
    int inner = outer + 1;
    trace(inner);
  }
}
