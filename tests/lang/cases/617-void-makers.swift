// make_void, makeVoid and propagate.
void a = make_void();
void b = makeVoid();
int x = 3;
void c = propagate(x, a, b);
wait (c) {
  trace("all closed", x);
}
