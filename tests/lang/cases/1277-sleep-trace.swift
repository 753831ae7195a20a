// sleep_trace sleeps, then traces its other arguments (§12).
import sys;
sleep_trace(0.05, "woke", 3);
