// A struct built field by field.
type Point {
  int x;
  int y;
  string name;
}
Point p;
p.x = 3;
p.y = 4;
p.name = "corner";
trace(p.name, p.x * p.y);
