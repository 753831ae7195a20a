// Definition annotations are accepted and ignored.
@pure @deterministic (int o) square(int i) {
  o = i * i;
}
@sideeffectfree (int o) cube(int i) {
  o = i * i * i;
}
@dispatch=WORKER (int o) neg(int i) {
  o = -i;
}
@deprecated @suppress=unused (int o) ident(int i) {
  o = i;
}
trace(square(3), cube(2), neg(4), ident(5));
