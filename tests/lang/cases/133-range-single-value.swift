// A range with a == b holds one value.
int R[] = [3:3];
trace(size(R), R[0]);
