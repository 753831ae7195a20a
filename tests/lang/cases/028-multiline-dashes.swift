// The ---- multi-line form keeps both delimiter newlines too.
import string;
string s = ----
alpha
----;
trace(strlen(s), s == "\nalpha\n");
