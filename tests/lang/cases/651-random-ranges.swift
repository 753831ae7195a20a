// random() is in [0,1) and randint(a, b) in [a, b).
import random;
import assert;
foreach i in [1:20] {
  float r = random();
  int k = randint(3, 5);
  assert(r >= 0.0 && r < 1.0, "random() out of range");
  assert(k >= 3 && k < 5, "randint() out of range");
}
