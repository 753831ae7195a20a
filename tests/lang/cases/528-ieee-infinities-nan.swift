// Float division by zero follows IEEE.
float zero = tofloat("0.0");
trace(1.0 / zero, -1.0 / zero, zero / zero);
