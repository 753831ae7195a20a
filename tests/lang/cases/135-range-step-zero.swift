// A range step of zero is a run-time error.
// THIS-TEST-SHOULD-NOT-RUN
int step = toint("0");
foreach v in [1:5:step] {
  trace(v);
}
