// A file argument, or @f, gives the file's path.
import files;
import string;
app (file o) copy(file src) {
  "cp" src o
}
app (file o) copy_at(file src) {
  "cp" @src @o
}
file a <"copy-a.txt"> = copy(input("notes.txt"));
file b <"copy-b.txt"> = copy_at(input("notes.txt"));
trace(trim(read(a)), trim(read(b)));
