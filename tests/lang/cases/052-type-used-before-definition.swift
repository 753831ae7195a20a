// Types may be used before their definition.
Point p = Point(3, 4);
trace(p.x + p.y);

type Point {
  int x;
  int y;
}
