// A[k1] of a nested array is itself an array (here keyed by string).
string T[][string];
T[0] = {"a": "x"};
T[1] = {"b": "y", "c": "z"};
trace(T[1]["c"], size(T[1]), T[0]["a"]);
