// @waitonall waits for every variable the loop reads from outside; @nosplit is ignored (§13).
// ORDERED
import io;
(int o) set (string name) {
  printf("set %s", name) => o = 7;
}
int z = set("z");
@waitonall @nosplit
foreach i in [1:1] {
  printf("loop");
  int w = z + i;
}
