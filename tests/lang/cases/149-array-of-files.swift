// Arrays may hold files.
import files;
file F[];
F[0] = write("zero");
F[1] = write("one");
trace(read(F[1]), size(F));
