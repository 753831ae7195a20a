// A variable written in separate ifs that are never both true is legal (§12).
int x;
boolean b = true;
if (b) { x = 1; }
if (!b) { x = 2; }
trace(x);
