// Declaring a name twice in one scope is a compile error.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 6:3 or 6:7
main {
  int total = 1;
  int total = 2;
  trace(total);
}
