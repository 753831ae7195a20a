// A function without outputs is called as a statement.
note(string s) {
  trace("note", s);
}
note("hi");
