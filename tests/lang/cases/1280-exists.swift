// exists(A, k) tells whether A has key k (§12); it answers when it runs (§13), here once A is closed.
int A[string] = {"a": 1};
wait (A) {
  trace(exists(A, "a"), exists(A, "b"));
}
