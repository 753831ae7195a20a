// clock_seconds() is seconds since the epoch; turbine_engines() is 1 here (§13).
import sys;
float now = clock_seconds();
trace(now > 1700000000.0, now < 4000000000.0, turbine_engines());
