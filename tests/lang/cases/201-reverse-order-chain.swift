// Statements written in reverse dependency order still run.
int a, b, c;
trace(c);
c = b + 1;
b = a * 10;
a = 4;
