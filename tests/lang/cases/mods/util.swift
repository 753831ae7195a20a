// Module for the import tests: loaded as `import mods.util;`.
(int o) util_triple(int i) {
  o = i * 3;
}

(string o) util_greet(string who) {
  o = "hello " + who;
}
