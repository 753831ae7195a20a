// expr may be passed by keyword.
import python;
trace(python("z = 'abc'", expr="z.upper()"));
