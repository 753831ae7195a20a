// A field of a function's struct output read in its body but written nowhere: a compile
// error (the caller cannot write it).
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 9:9
// STDERR: o.b
type P { int a; int b; }
(P o) f() {
  o.a = 1;
  trace(o.b);
}
P p = f();
trace(p.a);
