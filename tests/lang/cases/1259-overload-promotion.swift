// An int literal reaches the single float overload by promotion (§12).
(float o) g(float x) { o = x * 2.0; }
(string o) g(string s) { o = s + s; }
trace(g(2), g("ab"));
