// A wait whose body assigns the awaited variable can never run: a compile error naming it (§12).
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 6:7
// STDERR: gate
int gate;
wait (gate) {
  gate = 1;
}
