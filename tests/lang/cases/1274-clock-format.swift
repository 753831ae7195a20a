// clock_format formats local time; the constants name ISO 8601 and RFC 3339 layouts (§12).
// ENV: TZ=UTC
import sys;
trace(clock_format(CLOCK_FMT_ISO8601, 86400.4));
trace(clock_format(CLOCK_FMT_RFC3339, 0));
trace(clock_format("%Y", 1700000000));
