// Float text form above 1e16 uses an exponent with a sign and no padding.
trace(1e16, 1e17, -2.5e20, 12345678901234567.0, 1e300);
