// A field of an array element cannot be assigned, not even after the element was assigned
// whole: an element is assigned as a whole struct only (§13).
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 11:1
type Point {
  int x;
  int y;
}
Point P[];
P[0] = Point(1, 2);
P[0].x = 5;
trace(P[0].y);
