// Trigonometric functions and cbrt.
import math;
trace(sin(0.0), cos(0.0), tan(0.0), asin(1.0), acos(1.0), atan(1.0), atan2(1.0, 1.0), cbrt(8.0));
