// A variable declared before a for loop and assigned under a condition in its body (§12).
int r;
for (int i = 0; i < 5; i = i + 1) {
  if (i == 3) { r = i * 10; }
}
trace(r);
