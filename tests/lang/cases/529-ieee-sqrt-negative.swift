// sqrt of a negative number is NaN.
import math;
trace(sqrt(-1.0), is_nan(sqrt(-1.0)), isNaN(1.0));
