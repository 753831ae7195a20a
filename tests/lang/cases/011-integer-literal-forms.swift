// Decimal (leading zeros stay decimal), 0x hex and 0o octal integer literals.
trace(42, 007, 010, 0x1f, 0xFF, 0o17, 0o0, 0);
