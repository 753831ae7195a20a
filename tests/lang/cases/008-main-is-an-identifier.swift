// main is an ordinary identifier: here a plain global variable.
int main = 4;
trace(main + 1);
