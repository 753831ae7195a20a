// Assigning a file to a mapped file puts its contents at the path.
import files;
file src = write("copied");
file dst <"dst.txt"> = src;
wait (dst) {
  trace(read(input("dst.txt")), filename(dst));
}
