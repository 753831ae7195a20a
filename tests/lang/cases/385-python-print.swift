// Python's stdout is program stdout.
import python;
python("print('from python')");
