// A triple-quoted string keeps the newlines after the opener and before the closer.
import string;
string s = """
line one
line two
""";
trace(strlen(s), s == "\nline one\nline two\n");
