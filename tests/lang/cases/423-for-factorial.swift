// A sequential accumulation in a for loop.
int acc;
for (acc = 1, int i = 1; i <= 5; i = i + 1, acc = acc * i) {
}
trace(acc);
