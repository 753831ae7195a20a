// The escapes \" \\ and \? in strings.
trace("q\"q", "b\\s", "what\?");
