// replace, replace_all and replaceAll.
import string;
trace(replace("a-b-c", "-", "+", 0), replace("a-b-c", "-", "+", 2),
      replace_all("a-b-c-d", "-", "+", 2), replace_all("a-b-c", "-", "", 0),
      replaceAll("x.y.z", ".", "/"));
