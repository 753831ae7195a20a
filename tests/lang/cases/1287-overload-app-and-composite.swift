// An app function and a composite function may share a name with different parameter types (§12).
import files;
app (file o) emit(string s) { "echo" s @stdout=o }
(file o) emit(int n) { o = emit("n=" + n); }
trace(trim(read(emit("x"))), trim(read(emit(3))));
