// Float conversions f e E g G with width and precision.
import string;
trace(sprintf("%f|%.2f|%8.3f|%-8.1f|%e|%.2E|%g|%G", 1.5, 3.14159, 2.5, 2.26, 12345.678, 0.000123, 0.0001, 1e-5));
