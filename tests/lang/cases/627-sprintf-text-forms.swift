// %s prints the text form of any scalar.
import string;
trace(sprintf("%s %s %s %s", 2.0, true, 17, 1e-7));
