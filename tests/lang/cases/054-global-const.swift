// The deprecated global const form declares a global.
global const int LIMIT = 10;

(int o) above() {
  o = LIMIT + 1;
}

trace(above(), LIMIT);
