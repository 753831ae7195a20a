// fmt % (a, b) is sprintf(fmt, a, b).
import string;
trace("%d-%s" % (3, "x"), "%i items" % 5, "%.1f%%" % 12.34);
