// trim, toUpper and toLower.
import string;
trace("[" + trim("  a b \t\n") + "]", toUpper("MiXed 1"), toLower("MiXed 1"));
