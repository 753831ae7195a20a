// [a:b] holds a..b inclusive, keyed from 0.
int R[] = [1:5];
trace(size(R), R[0], R[4]);
