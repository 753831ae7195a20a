// Float text form: shortest round-trip digits, positional for exponents -4..16.
trace(1.0, 100.0, 0.0001, -0.0, 0.1 + 0.2, 2.5);
