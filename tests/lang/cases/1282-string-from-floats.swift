// string_from_floats joins the text forms with commas (§12).
trace(string_from_floats([1.0, 0.5, 100.0]));
