// Passing assertions do nothing.
import assert;
assert(true, "x");
assertEqual(2, 2, "ints");
assertEqual("a", "a", "strings");
assertEqual(1.5, 1.5, "floats");
assertLT(1, 2, "lt");
assertLTE(2, 2, "lte");
assertLT(1.5, 2.5, "float lt");
trace("all passed");
