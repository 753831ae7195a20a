// A T does not convert to a subtype NAME except by NAME(e) (§13).
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:14 or 5:10
type superint int;
superint s = 3;
trace(s);
