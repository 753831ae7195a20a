// Control structures nest freely.
foreach i in [1:6] {
  if (i %% 2 == 0) {
    switch (i) {
      case 2:
        trace("two");
      default:
        trace("even", i);
    }
  }
}
