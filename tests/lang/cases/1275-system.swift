// system runs an argv list without a shell: output and exit status (§12).
import sys;
string o; int rc;
o, rc = system(["echo", "a  b", "$HOME"]);
trace(o, rc);
string o2; int rc2;
o2, rc2 = system(["false"]);
trace(o2 == "", rc2);
