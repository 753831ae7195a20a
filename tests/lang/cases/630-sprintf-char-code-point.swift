// %c prints the character with that code point.
import string;
trace(sprintf("%c%c", 233, 0x263A));
