// Included textually by the #include tests (no module statement needed).
(int o) inc_plus_two(int i) {
  o = i + 2;
}
