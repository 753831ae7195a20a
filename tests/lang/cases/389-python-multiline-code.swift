// Multi-line Python code in a triple-quoted string.
import python;
string code = """
total = 0
for i in range(5):
    total += i
""";
trace(python(code, "str(total)"));
