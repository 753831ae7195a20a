// size and contains.
int A[string] = {"x": 1, "y": 2};
trace(size(A), contains(A, "x"), contains(A, "z"), size([1:10]));
