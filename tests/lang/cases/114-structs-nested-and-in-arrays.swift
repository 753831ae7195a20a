// Structs inside structs and arrays of structs.
type Point {
  int x;
  int y;
}
type Segment {
  Point a;
  Point b;
}
Point pts[];
pts[0] = Point(0, 0);
pts[1] = Point(3, 4);
Segment s = Segment(pts[0], pts[1]);
trace(pts[1].y, s.b.x - s.a.x);
