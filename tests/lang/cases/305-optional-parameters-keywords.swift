// Optional parameters take literal defaults and are passed by keyword.
import string;
(string o) greet(string name, string greeting = "hello", int times = 1) {
  o = sprintf("%s %s x%i", greeting, name, times);
}
trace(greet("ann"));
trace(greet("bob", greeting="hi"));
trace(greet("cy", times=3));
trace(greet("di", times=2, greeting="yo"));
