// Nested arrays written element by element.
int M[][];
M[0][0] = 1;
M[0][1] = 2;
M[1][0] = 3;
trace(size(M), size(M[0]), size(M[1]), M[1][0]);
