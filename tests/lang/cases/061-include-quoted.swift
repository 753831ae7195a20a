// #include "p" textually includes a file beside the script.
#include "mods/included.swift"
trace(inc_plus_two(40));
