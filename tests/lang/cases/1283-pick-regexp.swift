// pick_regexp keeps the elements that match, with their keys (§12).
import string;
string L[] = pick_regexp("^a", ["abc", "bcd", "axe"]);
trace(size(L), L[0], L[2], contains(L, 1));
