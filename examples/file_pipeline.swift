// An app pipeline over files: generate -> transform -> checksum, with mapped outputs under out/.
import files;
import string;

app (file o) generate (int lines) { "seq" lines @stdout=o }
app (file o) upper (file i) { "sed" "s/^/line /" @stdin=i @stdout=o }
app (file o) checksum (file i) { "sha256sum" @stdin=i @stdout=o }

int n = toint(argv("lines", "1000"));
file numbers <"out/numbers.txt"> = generate(n);
file labelled <"out/labelled.txt"> = upper(numbers);
file digest <"out/labelled.sha256"> = checksum(labelled);
trace("lines", size(file_lines(labelled)), "digest", substring(read(digest), 0, 16));
