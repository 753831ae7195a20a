// A nested array may be written at the row level.
int M[][];
M[0] = [1, 2];
M[1] = [3, 4, 5];
trace(size(M), size(M[1]), M[1][2]);
