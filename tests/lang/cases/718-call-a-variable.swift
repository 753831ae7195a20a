// Calling a variable is a compile error.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:1 or 5:2
int x = 1;
x(2);
