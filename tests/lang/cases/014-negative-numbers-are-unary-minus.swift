// Literals have no sign; unary minus makes negatives.
int a = 5;
trace(-a, - 3, 2 - -3, 2-3);
