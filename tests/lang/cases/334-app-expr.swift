// Int arguments become argv entries in text form.
import files;
import string;
app (file o) add(int a, int b) {
  "expr" a "+" b @stdout=o
}
trace(toint(trim(read(add(40, 2)))));
