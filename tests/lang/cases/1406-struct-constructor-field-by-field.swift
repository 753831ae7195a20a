// A struct built by its constructor takes each value into its field as it closes: a field
// is read before the other one is known (§13).
type P { int a; int b; }
int y;
P q = P(1, y);
y = q.a + 1;
trace(q.a, q.b);
