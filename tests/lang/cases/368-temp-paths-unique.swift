// Each unmapped file gets its own path.
import files;
file a = write("1");
file b = write("2");
trace(filename(a) != filename(b), read(a), read(b));
