// Integer conversions accept booleans.
import string;
trace(sprintf("%i %d", true, false));
