// int + - * and unary minus give ints.
int a = 7, b = -3;
trace(a + b, a - b, a * b, -a);
