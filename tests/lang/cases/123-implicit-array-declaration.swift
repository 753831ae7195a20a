// Assigning A[k] with A undeclared declares an array.
A[0] = "x";
A[1] = "y";
trace(size(A), A[1]);
