// foreach needs an array or a range.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:1 or 5:14
int n = 3;
foreach v in n {
  trace(v);
}
