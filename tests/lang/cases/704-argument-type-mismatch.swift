// A library call with an argument of the wrong type.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:7 or 5:14
import string;
trace(strlen(5));
