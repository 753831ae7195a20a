// repr gives a value's text form; array_repr each element's, keys kept (§12).
string R[] = array_repr([1.5, 2.0, 1e20]);
trace(repr(2.5), repr(true), repr(7), R[0], R[1], R[2]);
