// Spec example 1: printf with a computed float.
import io;
string who = "world";
int n = 7;
printf("hello %s: %i items, %.2f each", who, n, 10.0 / int2float(n));
