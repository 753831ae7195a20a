// \x and 1 or 2 hex digits give that code point.
trace("\x41\x42", "\x414", "\x9" == "\t", "\x7e");
