// wait runs its block after the listed values close.
(int o) inc(int i) {
  o = i + 1;
}
int x = inc(4);
int y = inc(x);
wait (x, y) {
  trace("ready", x + y);
}
