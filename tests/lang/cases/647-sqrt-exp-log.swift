// sqrt, exp and the logarithms.
import math;
trace(sqrt(16.0), exp(0.0), log(1.0), ln(1.0), log2(8.0), log10(100.0), log(E), log(8.0, 2.0));
