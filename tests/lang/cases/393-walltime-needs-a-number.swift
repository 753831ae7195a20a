// @walltime needs a positive number of seconds [ours, issue 16].
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4:11
@walltime="soon"
app (void o) nap() { "sleep" "1" }
nap();
