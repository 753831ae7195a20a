// A struct field may be an array.
type Series {
  string name;
  float values[];
}
Series s;
s.name = "temps";
s.values[0] = 1.5;
s.values[1] = 2.5;
trace(s.name, size(s.values), s.values[1]);
