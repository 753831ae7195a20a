// An app command may end with a semicolon.
import files;
import string;
app (file o) hello() {
  "echo" "semi" @stdout=o;
}
trace(trim(read(hello())));
