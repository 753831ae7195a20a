// min and max on ints and floats.
trace(min(3, 5), max(3, 5), min(2.5, 1.5), max(-1.0, -2.0));
trace(min_integer(4, -4), max_integer(4, -4), min_float(0.5, 0.25), max_float(0.5, 0.25));
