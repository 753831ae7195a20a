// A chain waits for a void app output before the next link.
import files;
app (void done) touch(string p) {
  "touch" p
}
touch("made.txt") => trace(file_exists("made.txt"));
