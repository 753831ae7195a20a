// Redirections take files.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:12 or 5:13 or 5:20
app (file o) bad(string s) {
  "echo" s @stdout=s
}
file f = bad("x");
