// A local variable may hide a global type name.
type Point {
  int x;
}
main {
  int Point = 3;
  trace(Point);
}
