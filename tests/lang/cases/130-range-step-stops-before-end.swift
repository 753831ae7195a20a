// A stepped range stops at the last value not above b.
int R[] = [0:10:4];
trace(size(R), R[2]);
