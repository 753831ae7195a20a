// Run-time errors (here an absent key) are printed with the 'Swift: ' prefix.
// THIS-TEST-SHOULD-NOT-RUN
int A[string];
A["present"] = 1;
trace(A["absent"]);
