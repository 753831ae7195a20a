// exists(A, k) is contains(A, k) (§12).
int A[string] = {"a": 1};
trace(exists(A, "a"), exists(A, "b"));
