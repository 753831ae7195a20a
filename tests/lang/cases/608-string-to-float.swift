// tofloat, string2float and parseFloat.
trace(tofloat("2.5"), tofloat(" 1e3 "), string2float("-3"), parseFloat("0.125"),
      tofloat("inf"), tofloat("nan"), tofloat("-inf"));
