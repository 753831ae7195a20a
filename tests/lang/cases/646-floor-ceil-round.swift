// floor, ceil and round give floats; round goes half away from zero.
import math;
trace(floor(2.7), floor(-2.5), ceil(2.1), ceil(-2.1));
trace(round(2.5), round(-2.5), round(2.4), round(0.5));
