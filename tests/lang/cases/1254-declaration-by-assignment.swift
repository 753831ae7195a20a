// `x = e;` with no x in scope declares it with e's type (§12).
x = 3;
y = 2.5;
s = "a" + x;
A = [1, 2];
trace(x + 1, y * 2.0, s, size(A));
