// File arguments are passed as their paths.
import files;
import string;
app (file o) cat2(file a, file b) {
  "cat" a b @stdout=o
}
file a = write("one\n");
file b = write("two\n");
trace(replace_all(trim(read(cat2(a, b))), "\n", "+", 0));
