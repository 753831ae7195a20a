// A mapped file assigned from a composite function's output.
import files;
(file o) make(string s) {
  o = write(s);
}
file m <"made.txt"> = make("via function");
wait (m) {
  trace(read(input("made.txt")));
}
