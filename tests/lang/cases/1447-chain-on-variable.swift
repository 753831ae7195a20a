// `v => S` starts S when the variable v is closed (§13).
// ORDERED
import io;
void a = printf("first");
a => printf("second");
