// A cycle through composite calls deadlocks.
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: left
(int o) same(int i) {
  o = i;
}
int left, right;
left = same(right);
right = same(left);
trace(left);
