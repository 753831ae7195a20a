// clock_format uses the time zone of TZ (local time) (§13).
// ENV: TZ=JST-9
import sys;
trace(clock_format("%Y-%m-%d %H:%M", 0));
