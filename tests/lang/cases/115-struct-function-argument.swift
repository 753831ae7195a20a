// Structs are passed to functions.
import math;
type Point {
  int x;
  int y;
}
(int d) manhattan(Point a, Point b) {
  d = abs_integer(a.x - b.x) + abs_integer(a.y - b.y);
}
trace(manhattan(Point(1, 5), Point(4, 1)));
