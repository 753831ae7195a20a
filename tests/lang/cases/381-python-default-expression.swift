// The default expression of python() is the empty string.
import python;
string r = python("y = 1");
trace("[" + r + "]");
