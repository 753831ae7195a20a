// Array literals in a command line expand to their elements.
app (void v) say() {
  "echo" ["a", "b"] "c"
}
say();
