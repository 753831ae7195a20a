// Comment marks inside strings are ordinary text.
trace("a#b", "c//d", "/*e*/");
