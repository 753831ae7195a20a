// A composite call starts at once: an output may feed its own input.
(int first, int second) pair(int i) {
  first = 10;
  second = i + 1;
}
int p, q;
p, q = pair(p);
trace(p, q);
