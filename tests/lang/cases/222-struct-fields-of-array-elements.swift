// A struct element of an array may be assigned by fields, like a struct variable:
// the element exists from its first field write, and closes with the array.
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
  P[i].x = i;
  P[i].y = i * i;
}
int k = toint("2");
P[k + 2].x = 40;
P[4].y = 41;
Box B[];
B[0].corner.x = 7;
B[0].corner.y = 8;
B[0].tags[0] = "a";
B[0].tags[1] = "b";
trace(P[3].y, P[4].x + P[4].y, size(P), B[0].corner.x * B[0].corner.y, size(B[0].tags));
