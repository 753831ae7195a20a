// #include <p> also includes textually.
#include <mods/included.swift>
# a hash comment still works next to an include
trace(inc_plus_two(1));
