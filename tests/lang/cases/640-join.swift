// join and string_join use text forms; the default separator is a space.
import string;
trace(join(["a", "b", "c"], "-"), join(["x", "y"]), string_join(["p", "q"], "+"),
      join([1.0, 2.5], ";"), join([3, 4], ""));
