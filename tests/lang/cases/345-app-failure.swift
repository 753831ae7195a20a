// A failing app is a run-time error naming the command line.
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: command:
// STDERR: false
app (void v) fail() {
  "false"
}
fail();
