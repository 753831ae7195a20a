// A single-output function used inside expressions.
(int o) inc(int i) {
  o = i + 1;
}
trace(inc(inc(1)));
