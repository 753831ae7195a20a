// A macro defined before an #include applies in the included file (§12).
#define BASE 40
#include "mods/uses_base.swift"
trace(plus_base(2));
