// Python code may import standard modules.
import python;
trace(python("import math", "str(math.factorial(5))"));
