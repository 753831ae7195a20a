// foreach over any array expression.
import string;
foreach w, i in split("red green blue", " ") {
  trace(i, w);
}
