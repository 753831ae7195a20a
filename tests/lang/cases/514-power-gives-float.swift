// ** gives a float, also for two ints.
int a = 2, b = 10;
trace(2**3, a**b, 2.0**0.5, 9**0.5);
