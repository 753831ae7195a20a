// A variable read but never assigned is a compile error.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4:1 or 4:5 or 5:7
int ghost;
trace(ghost);
