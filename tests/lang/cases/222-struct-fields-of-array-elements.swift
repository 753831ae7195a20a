// A struct element of an array is assigned whole (§13), from a struct built by fields
// or by its constructor; its fields are then read one by one.
type Point {
  int x;
  int y;
}
type Box {
  Point corner;
  string tags[];
}
Point P[];
foreach i in [0:3] {
  Point p;
  p.x = i;
  p.y = i * i;
  P[i] = p;
}
int k = toint("2");
P[k + 2] = Point(40, 41);
Box b;
b.corner.x = 7;
b.corner.y = 8;
b.tags[0] = "a";
b.tags[1] = "b";
Box B[];
B[0] = b;
trace(P[3].y, P[4].x + P[4].y, size(P), B[0].corner.x * B[0].corner.y, size(B[0].tags));
