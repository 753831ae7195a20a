// One declaration may list several variables, with and without values.
int a, b = 2, C[];
a = 1;
C[0] = a + b;
trace(a, b, C[0]);
