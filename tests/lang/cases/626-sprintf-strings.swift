// %s with width, - flag and precision.
import string;
trace(sprintf("[%s][%10s][%-6s][%.2s]", "abc", "right", "left", "truncate"));
