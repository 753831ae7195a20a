// x = 5/2; declares a float 2.5.
x = 5/2;
float y = 1/4;
trace(x, y);
