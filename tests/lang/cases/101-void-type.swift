// void values carry only closedness.
void v = make_void();
wait (v) {
  trace("void closed");
}
int a = 1;
void w = propagate(a);
wait (w) {
  trace("propagated");
}
