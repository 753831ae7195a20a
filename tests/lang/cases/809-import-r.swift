// R is not supported.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:1 or 5:8
// STDERR: unsupported feature
import R;
trace(1);
