// int arithmetic wraps at 64 bits.
int big = toint("9223372036854775807");
int one = toint("1");
trace(big + one, -big - one - one, big * 2);
