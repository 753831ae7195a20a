// A url is not a local file: read(u) is a compile error (§13).
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 6:12 or 6:17
import files;
url u = input_url("http://example.org/x");
string s = read(u);
trace(s);
