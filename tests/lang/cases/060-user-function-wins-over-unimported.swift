// A user function named like a library function of an un-imported module wins.
(string o) trim(string s) {
  o = "user:" + s;
}
trace(trim("[x]"));
