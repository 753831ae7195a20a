// Escapes are processed inside multi-line strings.
string s = """
\tindented \"quoted\"
""";
trace(s == "\n\tindented \"quoted\"\n");
