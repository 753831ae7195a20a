// UTF-8 text passes through; lengths count characters.
import string;
string s = "héllo wörld ✓";
trace(s, strlen(s), length(s));
