// An app that cannot start is a run-time error.
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: command:
// STDERR: no-such-program-xyzzy
app (void v) missing() {
  "no-such-program-xyzzy" "arg"
}
missing();
