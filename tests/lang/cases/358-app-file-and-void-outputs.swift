// An app may have file and void outputs together.
import files;
import string;
app (file o, void done) hello() {
  "echo" "both" @stdout=o
}
file f;
void d;
f, d = hello();
wait (d) {
  trace("done", trim(read(f)));
}
