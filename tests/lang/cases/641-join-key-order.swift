// join follows ascending keys.
import string;
string A[];
A[10] = "ten";
A[2] = "two";
A[1] = "one";
trace(join(A, " "));
