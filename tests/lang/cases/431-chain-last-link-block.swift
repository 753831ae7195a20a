// The last link of a chain may be a block.
(int o) inc(int i) {
  o = i + 1;
}
int r = inc(1) => {
  trace("after", r);
}
