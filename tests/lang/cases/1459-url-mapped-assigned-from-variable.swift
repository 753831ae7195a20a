// Assigning another variable to a mapped url is a compile error (§13).
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 6
url a = input_url("http://example.org/a");
url b <"http://example.org/b">;
b = a;
trace(filename(b));
