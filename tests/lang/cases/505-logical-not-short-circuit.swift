// && and || evaluate both operands.
(boolean o) noisy(string s) {
  trace("evaluated", s);
  o = true;
}
trace(false && noisy("and"), true || noisy("or"));
