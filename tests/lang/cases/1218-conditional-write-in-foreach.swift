// An outer variable written under a condition in one foreach iteration (§12).
int found;
foreach v in [3, 8, 5] {
  if (v == 8) { found = v; }
}
trace(found);
