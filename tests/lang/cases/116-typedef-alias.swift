// typedef makes an alias usable both ways.
typedef count int;
count c = 5;
int d = c + 1;
count e = d;
trace(c, d, e);
