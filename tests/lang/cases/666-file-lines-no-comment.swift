// file_lines with an empty comment string keeps # text.
import files;
foreach line, k in file_lines(input("lines.txt"), "") {
  trace(k, line);
}
