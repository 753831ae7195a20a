// >= is one token, so a mapping written <"x">=f() does not parse.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 7:15 or 7:23
app (file o) make() {
  "echo" "x" @stdout=o
}
file f<"x.txt">=make();
