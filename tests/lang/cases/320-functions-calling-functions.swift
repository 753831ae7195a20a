// Functions compose.
(int o) sq(int i) {
  o = i * i;
}
(int o) sum_of_squares(int a, int b) {
  o = sq(a) + sq(b);
}
trace(sum_of_squares(3, 4));
