// @prio call prefixes are hints; results are unchanged.
(int o) inc(int i) {
  o = i + 1;
}
note(string s) {
  trace(s);
}
int p = 3;
@prio=10 note("high");
@prio=(p + 1) note("computed");
int v = @prio=1 inc(4);
trace(v);
