// abs_integer, abs_float and abs.
import math;
trace(abs_integer(-5), abs_float(-2.5), abs(-0.5), abs_integer(3));
