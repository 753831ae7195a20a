// A mapped file declared first and assigned later lives at its path.
import files;
file out <"mapped.txt">;
out = write("m");
wait (out) {
  trace(file_exists("mapped.txt"), filename(out));
}
