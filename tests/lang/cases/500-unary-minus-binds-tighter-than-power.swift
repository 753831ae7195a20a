// Unary minus binds tighter than **: -2**2 is 4.0.
trace(-2**2, 2**-1);
