// The largest signed 64-bit literal is accepted; unary minus negates it.
trace(9223372036854775807, -9223372036854775807);
