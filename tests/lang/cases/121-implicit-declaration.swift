// Assigning an undeclared name declares it with the value's type.
n = 4;
f = 1.5;
s = "str";
b = false;
trace(n + 1, f * 2.0, s + "!", b);
