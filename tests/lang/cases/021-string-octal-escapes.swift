// Backslash and 1 to 3 octal digits give that code point.
trace("\101\102", "\1012", "\60", "\11" == "\t", "\7" == "\a");
