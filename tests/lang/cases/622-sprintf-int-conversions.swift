// Integer conversions i u o x X c and the # flag.
import string;
trace(sprintf("%i %u %o %x %X %#x %c", 7, 42, 8, 255, 255, 255, 65));
