// + with a string concatenates text forms.
trace("n=" + 3, "f=" + 2.5, "e=" + 1e17, "s" + "t", "z=" + (1 + 2), "a" + 1 + 2);
