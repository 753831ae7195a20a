// A value of subtype N of T is usable as a T.
import files;
import string;
type textfile file;
app (textfile o) produce() {
  "echo" "sub" @stdout=o
}
textfile t = produce();
file plain = t;
trace(trim(read(t)), trim(read(plain)));
