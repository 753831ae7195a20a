// An integer literal gives an implicitly declared variable type int.
n = 7;
int q = n %/ 2;
trace(q);
