// string / string joins with a slash.
string d = "dir";
trace(d / "file.txt", "a" / "b" / "c");
