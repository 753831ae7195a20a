// Parallel loop iterations fill an array read as a whole.
import string;
string parts[];
foreach w, i in ["x", "y", "z"] {
  parts[i] = w + w;
}
trace(join(parts, "-"));
