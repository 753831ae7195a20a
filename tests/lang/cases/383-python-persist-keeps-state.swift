// python_persist keeps one namespace for the whole run.
import python;
python_persist("counter = 41") =>
  trace(python_persist("counter += 1", "str(counter)"));
