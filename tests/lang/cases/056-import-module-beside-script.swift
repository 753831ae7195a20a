// import a.b loads a/b.swift from the script's directory.
import mods.util;
trace(util_triple(4), util_greet("ann"));
