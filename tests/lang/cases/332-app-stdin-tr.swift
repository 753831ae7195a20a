// @stdin feeds a file to the app.
import files;
app (file dst) upper(file src) {
  "tr" "a-z" "A-Z" @stdin=src @stdout=dst
}
file src = write("quiet\n");
trace(read(upper(src)) == "QUIET\n");
