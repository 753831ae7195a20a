// `q = (e);` is a parenthesized expression, not a tuple (§12).
q = (3);
trace(q * 2);
