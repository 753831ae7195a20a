// Files hold UTF-8 bytes.
import files;
file f <"u.txt"> = write("é\n");
wait (f) {
  trace(file_size("u.txt"));
}
