// x, y = 1, 2; assigns pairwise.
int x, y;
x, y = 1, 2;
trace(x, y);
