// Stream vs copy staging: each task hashes its own input of --mb MB, read once, front to back.
// Under a staging store with `staging = "stream"` the app reads each input while it downloads;
// with "copy" it starts once the download is complete. The first stage writes the inputs.
import string;

app (file o) make_input (int bytes) { "head" "-c" bytes "/dev/urandom" @stdout=o }
app (file o) digest (file i) { "sha256sum" @stdin=i @stdout=o }

argv_accept("tasks", "mb", "out");
int tasks = toint(argv("tasks", "8"));
int mb = toint(argv("mb", "50"));
string out = argv("out", "out/stream");
foreach k in [1:tasks] {
  file input <sprintf("%s/input-%i.bin", out, k)> = make_input(mb * 1048576);
  file hash <sprintf("%s/input-%i.sha256", out, k)> = digest(input);
}
