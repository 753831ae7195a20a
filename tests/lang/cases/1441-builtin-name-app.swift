// An app may not take the name of a builtin (§13).
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5
// STDERR: 'size'
app (file o) size (int i) { "echo" i @stdout=o }
