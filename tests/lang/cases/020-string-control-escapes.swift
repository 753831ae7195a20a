// Control escapes \a \b \f \n \r \t \v are one character each.
import string;
trace(strlen("\a\b\f\n\r\t\v"));
trace("\t" == "\x09", "\n" == "\x0a", "\a" == "\x07", "\b" == "\x08",
      "\f" == "\x0c", "\r" == "\x0d", "\v" == "\x0b");
