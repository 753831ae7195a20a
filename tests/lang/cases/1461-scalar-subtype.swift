// `type NAME T;` declares a subtype of a scalar: a NAME converts to T implicitly, NAME(e)
// makes one, and its text form is T's (§13).
import io;
type superint int;
type label string;
superint s = superint(3);
label n = label("bob");
int doubled = s * 2;
superint next = superint(s + 1);
(int o) twice (int x) {
  o = 2 * x;
}
trace(s, next, doubled, n + "!", twice(next));
printf("%i %s", s, n);
