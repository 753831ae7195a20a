// mktemp and mktemp_string give fresh paths.
import files;
import string;
string p = mktemp_string();
file m = mktemp();
trace(strlen(p) > 0, strlen(filename(m)) > 0, filename(m) != p);
