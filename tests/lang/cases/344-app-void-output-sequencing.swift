// A void app output closes when the app exits.
import files;
app (void done) touch(string p) {
  "touch" p
}
void d = touch("marker.txt");
wait (d) {
  trace(file_exists("marker.txt"));
}
