// @stderr captures the app's standard error.
import files;
import string;
app (file e) complain() {
  "sh" "-c" "echo to-err 1>&2" @stderr=e
}
trace(trim(read(complain())));
