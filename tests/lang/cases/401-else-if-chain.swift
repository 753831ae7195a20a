// else if chains.
(string o) classify(int n) {
  if (n < 0) {
    o = "negative";
  } else if (n == 0) {
    o = "zero";
  } else if (n < 10) {
    o = "small";
  } else {
    o = "large";
  }
}
trace(classify(-5), classify(0), classify(7), classify(12));
