// Python leaf functions: python() runs on a worker with a fresh namespace; python_persist keeps state.
import python;
import string;

foreach i in [1:4] {
  string r = python("import math", "repr(math.factorial(%i))" % i);
  trace("factorial", i, r);
}
python_persist("counter = 40") => trace("persisted", python_persist("counter += 2", "str(counter)"));
