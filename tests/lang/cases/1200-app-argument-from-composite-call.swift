// An app argument that calls a composite function waits for its value (§5.3, §12 item 1).
(string o) id(string s) { o = s; }
app (file o) say(string s) { "echo" (id(s)) @stdout=o }
file f = say("hello");
trace(strcat(id("a"), id("b")), read(f));
