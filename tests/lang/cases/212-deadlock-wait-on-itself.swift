// A wait whose body assigns the awaited variable deadlocks.
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: gate
// STDERR: 212-deadlock-wait-on-itself.swift:
int gate;
wait (gate) {
  gate = 1;
}
