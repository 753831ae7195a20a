// Assigning a variable in both branches of an if is one assignment.
int x;
if (toint("2") > 1) {
  x = 1;
} else {
  x = 2;
}
trace(x);
