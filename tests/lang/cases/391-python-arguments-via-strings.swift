// Values reach Python through the code string.
import python;
import string;
int n = 7;
trace(python(sprintf("v = %i ** 2", n), "str(v)"));
