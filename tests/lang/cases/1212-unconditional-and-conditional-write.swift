// A write that always runs and one in an if: certain to clash when the if runs, so a compile error.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 6:13
int x;
x = 1;
if (true) { x = 2; }
trace(x);
