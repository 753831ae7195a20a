// basename, dirname, rootname and extension of files.
import files;
file f = input("sub/x.tar.gz");
trace(basename(f), dirname(f), rootname(f), extension(f));
