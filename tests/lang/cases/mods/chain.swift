// Module for the import tests: imports mods.util itself, so a script importing
// both checks that a module is loaded only once.
import mods.util;

(int o) chain_six(int i) {
  o = util_triple(i) * 2;
}
