// Apps (file outputs, stdin/stdout, un-redirected stdout), Python leaves and builtins
// (cheap ones on the engine, sleep on a worker): the MPI tests compare its output and
// files under MPI with the local transport's.
import files;
import io;
import python;
import stats;
import string;
import sys;

app (file o) square (int k) { "expr" k "*" k @stdout=o }
app (file o) gather (file parts[]) { "cat" parts @stdout=o }
app (file o) digest (file i) { "sha256sum" @stdin=i @stdout=o }
app (void v) shout (int k) { "echo" "app says" k }

int n = toint(argv("n", "24"));
file part[];
int fact[];
foreach k in [1:n] {
  part[k] = square(k);
  fact[k] = toint(python("import math", "str(math.factorial(%i) %% 9973)" % k));
}
foreach k in [1:3] {
  shout(k);
}
file all <"out/squares.txt"> = gather(part);
file sum <"out/squares.sha256"> = digest(all);
printf("squares: %i lines, digest %s", size(file_lines(all)), substring(read(sum), 0, 16));
printf("factorials mod 9973 sum to %i", sum_integer(fact));
sleep(0.05) => printf("slept on a worker");
printf("persisted %s", python_persist("x = 41", "str(x + 1)"));
