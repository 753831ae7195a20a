// Integer literals convert to float where a float is needed.
import math;
float f = 3;
float g = 2 * 3 + 1;
float h = 2.5 * 2;
trace(f, g, h, sqrt(16));
