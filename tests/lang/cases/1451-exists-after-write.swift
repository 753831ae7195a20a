// exists sees an element written before it runs (§13); contains still waits for A (§4).
int A[];
A[1] = 5 => trace(exists(A, 1), exists(A, 2));
trace(contains(A, 1));
