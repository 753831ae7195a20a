// UPDATE may use variables of the loop body.
int acc;
for (acc = 1, int i = 0; i < 4; i = i + 1, acc = next) {
  int next = acc * 2;
}
trace(acc);
