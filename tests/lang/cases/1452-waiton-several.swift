// Several @waiton= on one for loop are all honoured: it starts when x and y are closed (§13).
// ORDERED
import io;
(int o) set (string name, int after) {
  printf("set %s", name) => o = after + 1;
}
int x = set("x", 0);
int y = set("y", x);
@waiton=x @waiton=y
for (int i = 0; i < 1; i = i + 1) {
  printf("loop");
}
