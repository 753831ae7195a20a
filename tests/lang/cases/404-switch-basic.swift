// switch picks one case or default; there is no fall-through.
foreach n in [0:4] {
  switch (n) {
    case 0:
      trace(n, "zero");
    case 1:
      trace(n, "one");
    case 3:
      trace(n, "three");
    default:
      trace(n, "other");
  }
}
