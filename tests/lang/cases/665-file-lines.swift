// file_lines cuts comments, trims, drops empty lines and keys by line number.
import files;
foreach line, k in file_lines(input("lines.txt")) {
  trace(k, line);
}
