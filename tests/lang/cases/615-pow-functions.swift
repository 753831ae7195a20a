// pow, pow_integer and pow_float give floats.
trace(pow(2.0, 0.5), pow_integer(2, 10), pow_float(1.5, 2.0));
