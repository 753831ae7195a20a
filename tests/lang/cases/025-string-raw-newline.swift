// A string literal may hold a raw newline.
import string;
string s = "first
second";
trace(strlen(s), s == "first\nsecond");
