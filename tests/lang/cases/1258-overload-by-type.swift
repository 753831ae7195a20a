// Composite functions may share a name when their parameter types differ (§12).
(int o) f(int x) { o = x + 1; }
(int o) f(string s) { o = strlen(s); }
trace(f(1), f("abcd"));
