// All standard modules can be imported together.
import io;
import string;
import sys;
import files;
import assert;
import math;
import random;
import stats;
import python;
printf("%s %.1f %i", trim("  ok  "), floor(2.5), sum_integer([1, 2, 3]));
assertEqual(argc(), 0, "no arguments");
trace(python("", "'py'"));
