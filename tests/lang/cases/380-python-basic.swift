// python(code, expr) runs code then returns str expr.
import python;
trace(python("x = 6 * 7", "str(x)"));
