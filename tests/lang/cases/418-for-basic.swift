// A for loop counts sequentially.
for (int i = 0; i < 4; i = i + 1) {
  trace(i);
}
