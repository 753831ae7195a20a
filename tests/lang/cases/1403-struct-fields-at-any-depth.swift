// Fields at any depth are futures of their own: a struct in an array in a struct in a
// struct, copied, gives each field as it closes; the field never set is never needed (§13).
type P { int a; int b; }
type Q { P items[]; string tag; }
type R { Q q; }
P p;
p.a = 3;
Q q;
q.items[0] = p;
q.tag = "t";
R r;
r.q = q;
R s = r;
trace(s.q.items[0].a, s.q.tag, size(s.q.items));
