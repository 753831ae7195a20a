// toint does not read hex.
// THIS-TEST-SHOULD-NOT-RUN
trace(toint("0x1f"));
