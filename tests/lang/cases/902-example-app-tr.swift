// Spec example 3: an app with stdin and stdout.
import files;
import string;
app (file dst) shout (file src) {
  "tr" "a-z" "A-Z" @stdin=src @stdout=dst
}
file note = write("quiet words\n");
file loud <"loud.txt"> = shout(note);
trace(trim(read(loud)), filename(loud));
