// Width and the - 0 + space flags.
import string;
trace(sprintf("[%5d][%-5d][%05d][%+d][% d]", 42, 42, 42, 42, 42));
