// Mutually recursive functions.
(boolean o) is_even(int n) {
  if (n == 0) {
    o = true;
  } else {
    o = is_odd(n - 1);
  }
}
(boolean o) is_odd(int n) {
  if (n == 0) {
    o = false;
  } else {
    o = is_even(n - 1);
  }
}
trace(is_even(6), is_odd(6));
