// main runs concurrently with top-level code; both print.
main {
  trace("in main");
}
trace("at top level");
