// Fan-out / fan-in of app calls: N independent tasks, then one task that reads all their outputs.
import files;
import string;

app (file o) square (int k) { "expr" k "*" k @stdout=o }
app (file o) gather (file parts[]) { "cat" parts @stdout=o }

int n = toint(argv("n", "20"));
file piece[];
foreach k in [1:n] {
  piece[k] = square(k);
}
file all <"out/squares.txt"> = gather(piece);
int total = sum_integer(toint_all(file_lines(all)));
trace("tasks", n, "sum of squares", total);

(int out[]) toint_all (string lines[]) {
  foreach line, i in lines {
    out[i] = toint(line);
  }
}
