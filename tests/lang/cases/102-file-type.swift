// A file value can be written and read back.
import files;
file f = write("content");
trace(read(f));
