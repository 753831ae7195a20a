// An app output of type url is a compile error (§13).
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4
app (url o) fetch () { "echo" "x" }
url v = fetch();
trace(filename(v));
