// An if that waits for a variable only its own branches write can never run (§12).
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:5
int a;
if (a) { a = 2; } else { a = 3; }
trace(a);
