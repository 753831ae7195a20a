// string_count counts non-overlapping occurrences.
import string;
trace(string_count("aaaa", "aa", 0, -1), string_count("banana", "a", 2, -1),
      string_count("banana", "x", 0, -1));
