// A negative range step is a run-time error.
// THIS-TEST-SHOULD-NOT-RUN
int step = toint("-1");
foreach v in [5:1:step] {
  trace(v);
}
