// An app starts once its input file, made by another app, is closed.
import files;
import string;
app (file o) hello() {
  "echo" "hello world" @stdout=o
}
app (file dst) upper(file src) {
  "tr" "a-z" "A-Z" @stdin=src @stdout=dst
}
file a = hello();
file b = upper(a);
trace(trim(read(b)));
