// Sibling blocks may declare the same name.
main {
  {
    int t = 1;
    trace(t);
  }
  {
    int t = 2;
    trace(t);
  }
}
