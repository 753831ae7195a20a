// The h l ll length modifiers are ignored.
import string;
trace(sprintf("%ld %lld %hd", 5, 6, 7));
