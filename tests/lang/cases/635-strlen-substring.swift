// substring takes n characters from i, clipped to the string.
import string;
trace(strlen("hello"), substring("hello", 1, 3), substring("hello", 3, 10),
      "[" + substring("hello", 7, 2) + "]", substring("日本語", 1, 1));
