// UPDATE computes the next instances from the current ones.
int a, b;
for (a = 0, b = 1, int i = 0; i < 10; i = i + 1, a = b, b = a + b) {
}
trace(a, b);
