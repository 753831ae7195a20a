// Top-level variables are globals visible in functions.
int scale = 3;

(int o) times(int i) {
  o = i * scale;
}

trace(times(5));
