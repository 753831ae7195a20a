// An opaque file type is not assignable to plain file (§12).
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 7:6 or 7:10
import files;
type text;
text t = write("x");
file f = t;
trace(filename(f));
