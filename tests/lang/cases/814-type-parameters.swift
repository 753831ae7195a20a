// Type parameters in user code are not supported.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:1
// STDERR: unsupported feature
<T> (T o) ident(T i) {
  o = i;
}
