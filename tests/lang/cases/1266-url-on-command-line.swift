// A url passes on a command line as its URL and is never staged (§12).
import files;
app (file o) show(url u) { "echo" @u @stdout=o }
url x = input_url("http://example.org/data.csv");
trace(trim(read(show(x))));
