// Each for-loop variable needs an update.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4:17 or 4:21
for (int i = 0, int j = 0; i < 3; i = i + 1) {
  trace(i, j);
}
