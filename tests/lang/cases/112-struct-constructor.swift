// A struct built by its constructor, fields in order.
type Point {
  int x;
  int y;
  string name;
}
Point r = Point(1, 2, "origin-ish");
trace(r.name, r.x + r.y);
