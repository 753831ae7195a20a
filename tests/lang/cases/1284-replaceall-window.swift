// replaceAll(s, t, r, i, j) replaces only inside [i, j) (§12).
import string;
trace(replaceAll("aaaaaa", "a", "b", 1, 4), replaceAll("xyxy", "x", "z"));
