// `type NAME;` declares a file-like type: mapped, passed to apps, read like a file (§12).
import files;
type text;
app (text o) upper(text i) { "tr" "a-z" "A-Z" @stdin=i @stdout=o }
text t = write("quiet\n");
text u <"loud.txt"> = upper(t);
trace(trim(read(u)), filename(u));
