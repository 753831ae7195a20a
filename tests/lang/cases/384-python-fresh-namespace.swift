// python() uses a fresh namespace per call.
import python;
python("leak = 1") =>
  trace(python("", "str('leak' in globals() or 'leak' in locals())"));
