// App outputs must be files or void.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4:6 or 4:10
app (int o) bad() {
  "echo" "1"
}
trace(bad());
