// is_nan and isNaN.
import math;
float zero = tofloat("0");
trace(is_nan(zero / zero), isNaN(1.5), is_nan(NaN));
