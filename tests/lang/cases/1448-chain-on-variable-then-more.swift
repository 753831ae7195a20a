// A variable link may start a longer chain; each link starts when the one before is done (§13).
// ORDERED
import io;
(int o) late (int i) {
  printf("computing") => o = i + 1;
}
int x = late(1);
x => printf("x is %i", x) => printf("last");
