// `a, b = (e1, e2);` assigns element-wise, declaring by inference (§12).
a, b = (1, 2.5);
int c;
c, d = (7, "x");
trace(a, b, c, d);
