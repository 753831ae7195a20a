// sleep gives a void; clock gives epoch seconds.
import sys;
float t0 = clock();
void s = sleep(0);
wait (s) {
  trace("slept");
}
trace(t0 > 1.0e9);
