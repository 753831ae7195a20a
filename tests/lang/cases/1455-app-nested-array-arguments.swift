// Array arguments of any depth are flattened in key order; `[[], []]` adds no word (§13).
import files;
import string;
app (file o) words (int A[][]) { "echo" "<" A ">" @stdout=o }
trace(trim(read(words([[], [1, 2], [], [3]]))));
trace(trim(read(words([[], []]))));
