// Exit status 0 closes outputs even if the app did not create them.
app (file o) nothing() {
  "true" @o
}
file f = nothing();
wait (f) {
  trace("closed");
}
