// Assigning an outer scalar in a foreach body is a double assignment.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 6:3
int total;
foreach i in [1:3] {
  total = i;
}
trace(total);
