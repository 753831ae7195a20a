// Float literals: D.D with optional exponent, and D with exponent.
trace(1.0, 2.3e-2, 1e3, 4E2, 2.5e-1, 0.5, 10.25);
