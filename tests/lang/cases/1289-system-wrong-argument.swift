// system takes an array of strings, not a string (§12: system1 takes a command line).
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 6:9
import sys;
string o; int rc;
o, rc = system("echo hi");
trace(o, rc);
