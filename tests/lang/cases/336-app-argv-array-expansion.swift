// An array argument gives one argv entry per element; spaces stay inside an entry.
app (void v) show(string words[]) {
  "printf" "[%s]\n" words
}
show(["a", "b c", "d"]);
