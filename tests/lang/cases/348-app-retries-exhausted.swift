// An app still failing after its retries is a run-time error.
// THIS-TEST-SHOULD-NOT-RUN
// ENV: TURBINE_APP_RETRIES_LOCAL=1
// STDERR: command:
import files;
import string;
app (void done) flaky(int needed) {
  "sh" "-c" "n=$(cat attempts 2>/dev/null || echo 0); n=$((n+1)); echo $n > attempts; test $n -ge $0" needed
}
void d = flaky(3);
wait (d) {
  trace("attempts", trim(read(input("attempts"))));
}
