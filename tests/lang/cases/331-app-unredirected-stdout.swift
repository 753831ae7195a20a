// An app's standard output is program output unless redirected.
app (void v) say(string w) {
  "echo" w
}
say("plain output");
