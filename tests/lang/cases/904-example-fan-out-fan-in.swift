// Spec example 5: fan-out and fan-in with apps.
import files;
import string;
import stats;
app (file o) square (int k) { "expr" k "*" k @stdout=o }
app (file o) gather (file parts[]) { "cat" parts @stdout=o }
file piece[];
int value[];
foreach k in [1:5] {
  piece[k] = square(k);                    // fan-out: five independent tasks
  value[k] = toint(trim(read(piece[k])));
}
file all <"squares.txt"> = gather(piece);  // fan-in; files passed in key order
trace("total", sum_integer(value));
