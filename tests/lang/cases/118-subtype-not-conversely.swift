// A T is not usable where its subtype is expected.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 6:1 or 6:8 or 6:12
type name_t string;
string raw = "x";
name_t n = raw;
trace(n);
