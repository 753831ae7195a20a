// toint, string2int and parseInt accept whitespace, sign and digits.
trace(toint("42"), toint(" -7 "), toint("+5"), toint("007"), string2int("12"),
      parseInt("777", 8), parseInt("101", 2), parseInt("99"));
