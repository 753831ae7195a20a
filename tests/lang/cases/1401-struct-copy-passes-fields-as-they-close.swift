// Copying a struct passes each field on as it closes: a field of the copy is read, and feeds
// another field of the original, before the original is complete (§13).
type P { int a; int b; }
P p;
P q = p;
p.a = 1;
p.b = q.a + 1;
trace(q.a, q.b);
