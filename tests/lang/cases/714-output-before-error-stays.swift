// A run-time error keeps output already written and exits 1.
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: Assertion failed!: stop
import assert;
app (void done) say(string s) {
  "echo" s
}
void d = say("before");
wait (d) {
  assert(false, "stop");
}
