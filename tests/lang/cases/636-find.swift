// find searches between i and j; -1 when absent.
import string;
trace(find("hello world", "o", 0, -1), find("hello world", "o", 5, -1), find("hello", "z", 0, -1),
      find("abcabc", "bc", 0, 1), find("abcabc", "bc", 0, 3), find("abcabc", "bc", 2, -1));
