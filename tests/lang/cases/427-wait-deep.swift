// wait deep waits for an array and all its elements.
import files;
file F[];
foreach i in [0:2] {
  F[i] = write(fromint(i));
}
wait deep (F) {
  trace("all written", size(F));
}
