// A module imported several times (also indirectly) is loaded once.
import mods.util;
import mods.chain;
import mods.util;
trace(chain_six(1), util_triple(2));
