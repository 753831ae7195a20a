// `a() => b()`: b starts after a's body has finished (§12 chaining).
// ORDERED
import io;
app (void o) nap(float s) { "sleep" s }
(void o) work() { nap(0.2) => o = propagate(); }
work() => printf("second");
printf("first");
