// A switch that waits for a variable only its own cases write can never run (§12).
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:9
int k;
switch (k) { case 0: k = 1; default: k = 2; }
trace(k);
