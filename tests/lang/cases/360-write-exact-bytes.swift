// write() stores the exact string, adding no newline.
import files;
import string;
file f = write("a\nb");
string s = read(f);
trace(strlen(s), s == "a\nb");
