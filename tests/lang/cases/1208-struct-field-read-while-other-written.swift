// A struct field is read while another field of the same struct is still being written (§4).
type P { int a; int b; }
P p;
p.a = 1;
p.b = p.a + 1;
trace(p.a, p.b);
