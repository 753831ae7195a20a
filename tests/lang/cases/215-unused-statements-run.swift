// Every statement runs, even if its result is never used.
(int o) noisy(int i) {
  trace("noisy", i);
  o = i;
}
int unused = noisy(5);
