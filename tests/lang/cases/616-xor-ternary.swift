// xor, ternary and ternary_string.
trace(xor(true, false), xor(true, true), ternary(true, 1, 2), ternary(false, 1, 2),
      ternary_string(false, "yes", "no"));
