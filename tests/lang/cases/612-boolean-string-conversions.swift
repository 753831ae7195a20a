// Boolean to string gives true/false; string to boolean reads words or numbers.
trace(bool2string(true), boolean2string(false), toString(true));
trace(string2boolean("yes"), string2boolean("OFF"), string2bool("True"), string2boolean("on"),
      string2boolean("No"), string2boolean("1"), string2boolean("0"), string2bool("FALSE"));
