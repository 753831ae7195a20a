// A for condition may be an int.
for (int i = 3; i; i = i - 1) {
  trace(i);
}
