// basename, dirname, rootname and extension of paths.
import files;
trace(basename_string("a/b/c.txt"), dirname_string("a/b/c.txt"), rootname_string("a/b/c.txt"),
      extension_string("x.txt"), dirname_string("a"));
