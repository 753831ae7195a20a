// A mapped file written by write() lives at its path.
import files;
file out <"result.txt"> = write("saved");
trace(read(out), filename(out));
wait (out) {
  trace(file_exists("result.txt"), file_size("result.txt"));
}
