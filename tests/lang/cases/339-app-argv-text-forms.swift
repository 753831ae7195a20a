// Scalar arguments use their text forms, one argv entry each.
// ORDERED
app (void v) show(int i, float f, boolean b, string s, float big) {
  "printf" "<%s>\n" i f b s big (i + 2) (-4) 0.5
}
show(3, 2.0, true, "x y", 1e17);
