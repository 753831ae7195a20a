// An array returned by a function, stored into a nested array, then aliased.
(int o[]) f() { o = [7, 8]; }
int B[][];
B[0] = f();
int C[] = B[0];
trace(size(C), C[1]);
