// if/else runs exactly one branch.
int n = toint("5");
if (n > 3) {
  trace("big");
} else {
  trace("small");
}
