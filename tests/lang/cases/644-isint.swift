// isint recognises decimal integers.
import string;
trace(isint("12"), isint(" -3 "), isint("+4"), isint("1.5"), isint("abc"), isint(""));
