// Boolean-keyed arrays.
int count[boolean];
count[true] = 3;
count[false] = 4;
trace(count[true], count[false]);
foreach v, k in count {
  trace(k, v);
}
