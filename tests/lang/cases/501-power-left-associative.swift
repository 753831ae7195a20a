// ** is left-associative.
trace(2**3**2);
