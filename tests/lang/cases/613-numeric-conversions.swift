// int/float/boolean conversions; float to int truncates.
trace(int2float(3), itof(-2), toFloat(5), float2int(-2.7), toInt(2.9), ftoi(-0.5),
      bool2int(true), bool2int(false));
