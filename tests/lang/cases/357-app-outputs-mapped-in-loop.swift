// Mapped output paths may be computed, one per loop iteration.
import files;
import string;
app (file o) number(int i) {
  "echo" i @stdout=o
}
foreach i in [1:3] {
  file out <sprintf("out-%i.txt", i)> = number(i);
  wait (out) {
    trace(filename(out), file_exists(sprintf("out-%i.txt", i)), trim(read(out)));
  }
}
