// repr and array_repr take arrays of any depth: members' text forms in key order (§13).
float F[] = [1.0, 2.0];
int N[][] = [[1], [2, 3]];
string S[string] = {"b": "y", "a": "x"};
trace(repr(F));
trace(repr(N));
trace(repr(S));
trace(repr(7));
string R[] = array_repr(N);
trace(R[0], R[1]);
