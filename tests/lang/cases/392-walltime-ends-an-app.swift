// @walltime=SECONDS on an app ends it (its whole process group) and fails the call [ours, issue 16].
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: Walltime exceeded: killed after 0.5 s
@walltime=0.5
app (void o) nap() { "sh" "-c" "sleep 30 & sleep 30" }
nap();
