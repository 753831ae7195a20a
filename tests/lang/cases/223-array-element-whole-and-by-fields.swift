// An array element assigned whole and by fields is assigned twice: a run-time error.
// THIS-TEST-SHOULD-NOT-RUN
type Point {
  int x;
  int y;
}
Point P[];
P[0] = Point(1, 2);
int k = toint("0");
P[k].x = 5;
trace(P[0].y);
