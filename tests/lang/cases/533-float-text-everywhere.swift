// strcat, +, %s, join and float2string use the float text form.
import string;
trace(strcat(2.0, "|", 1e20), "v" + 0.5, sprintf("%s", 1e-5), join([1.0, 2.5], ";"),
      float2string(100.0));
