// Float conversions accept ints.
import string;
int n = 3;
trace(sprintf("%.1f %e", n, 2));
