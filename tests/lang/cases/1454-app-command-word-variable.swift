// An app's command word may be any string expression, a global variable included (§13).
import files;
import string;
string echo = "echo";
app (file o) say (string s) { echo s @stdout=o }
trace(trim(read(say("hello"))));
