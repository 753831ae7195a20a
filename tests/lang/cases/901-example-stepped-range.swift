// Spec example 2: a stepped range in main.
main {
  foreach i in [1:10:4] {
    trace("step", i, i * i, i %% 3 == 0);
  }
}
