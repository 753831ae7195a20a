// => runs each link after the previous link's outputs close.
// ORDERED
app (void done) say(string s) {
  "echo" s
}
say("one") => say("two") => say("three");
