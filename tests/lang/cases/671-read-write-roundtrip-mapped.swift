// A written file read back line by line.
import files;
file a <"a.txt"> = write("first\nsecond\n");
foreach line, k in file_lines(a) {
  trace(k, line);
}
