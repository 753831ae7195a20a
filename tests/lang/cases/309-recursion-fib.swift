// Recursive functions.
(int o) fib(int n) {
  if (n < 2) {
    o = n;
  } else {
    o = fib(n - 1) + fib(n - 2);
  }
}
trace(fib(10));
