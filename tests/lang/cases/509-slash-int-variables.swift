// / does not take int variables.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 6
int a = 5;
int b = 2;
float q = a / b;
trace(q);
