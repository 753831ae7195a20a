// Redirected output files get their parent directories made.
import files;
app (file o) hello() {
  "echo" "nested" @stdout=o
}
file o <"out/deep/hello.txt"> = hello();
wait (o) {
  trace(file_exists("out/deep/hello.txt"));
}
