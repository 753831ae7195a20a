// glob patterns: ? [chars] {a,b} and backslash escapes; no match gives an empty array.
import files;
trace(size(glob("data/?.txt")), size(glob("data/[ab].*")), size(glob("data/{a,c}.*")),
      size(glob("data/*.none")), size(glob("data/x\\*y.txt")), size(glob("data/x*y.txt")));
