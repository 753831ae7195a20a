// Variables declared in a chain belong to the enclosing scope.
int a = 1 => int b = a + 1 => int c = b * 10;
trace(a, b, c);
