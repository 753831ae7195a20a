// A struct assigned whole from another struct.
type Point {
  int x;
  int y;
}
Point p;
p.x = 3;
p.y = 4;
Point q = p;
trace(q.x, q.y);
