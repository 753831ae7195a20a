// Spec example 5: squares.txt holds 1 4 9 16 25, one per line.
import files;
import string;
app (file o) square (int k) { "expr" k "*" k @stdout=o }
app (file o) gather (file parts[]) { "cat" parts @stdout=o }
file piece[];
foreach k in [1:5] {
  piece[k] = square(k);
}
file all <"squares.txt"> = gather(piece);
trace(replace_all(trim(read(all)), "\n", " ", 0));
