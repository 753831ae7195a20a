// A struct may hold an array of its own type.
type Node { int v; Node kids[]; }
Node n;
n.v = 1;
n.kids[0] = Node(2, []);
trace(n.v, n.kids[0].v, size(n.kids));
