// Struct fields are futures of their own.
type Pair {
  int a;
  int b;
}
Pair p;
trace(p.a + p.b);
p.b = p.a * 2;
p.a = 5;
