// Integer-keyed arrays filled in any order.
int A[];
A[2] = 20;
A[0] = 0;
A[1] = 10;
foreach v, k in A {
  trace(k, v);
}
