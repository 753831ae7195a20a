// Reading a field that no statement can write is the compile error "read but never
// assigned", at the read, naming the field (§9, §13; issue 31: it deadlocked at run time).
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 9:7
// STDERR: p.b
type P { int a; int b; }
P p;
p.a = 1;
trace(p.b);
