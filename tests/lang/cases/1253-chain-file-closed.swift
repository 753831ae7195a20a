// A chain waits for the file its first link writes.
import files;
app (file o) slow(string s) { "sh" "-c" "sleep 0.2; echo $1" "x" s @stdout=o }
file f = slow("hello") => trace(read(f));
