// Apps called from a parallel loop.
import files;
import string;
app (file o) square(int k) {
  "expr" k "*" k @stdout=o
}
foreach k in [1:4] {
  trace(k, trim(read(square(k))));
}
