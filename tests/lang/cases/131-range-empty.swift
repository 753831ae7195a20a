// A range with b < a is empty.
int R[] = [5:1];
trace(size(R));
foreach v in [3:2] {
  trace("never", v);
}
