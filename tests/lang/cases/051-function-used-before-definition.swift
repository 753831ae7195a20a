// Functions may be called before their definition.
trace(twice(21));

(int o) twice(int i) {
  o = i * 2;
}
