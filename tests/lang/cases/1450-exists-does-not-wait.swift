// exists(A, k) does not wait for A to close: it answers when it runs (§13), so a
// program that writes A after testing it runs (contains would wait forever).
int A[];
if (exists(A, 1)) {
  trace("present");
} else {
  A[1] = 2;
  trace("absent");
}
