// Assigning a function's output to a mapped url is a run-time error (§13).
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: mapped url 'b'
(url o) make () {
  o = input_url("http://example.org/x");
}
url b <"http://example.org/b">;
b = make();
