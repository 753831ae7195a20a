// @stdout sends an app's standard output to its output file.
import files;
import string;
app (file o) hello() {
  "echo" "hello world" @stdout=o
}
file f = hello();
trace(trim(read(f)));
