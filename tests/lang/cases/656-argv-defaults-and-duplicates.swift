// The last duplicate flag wins; a value may contain '='; argv takes a default.
// ARGS: --k=1 --k=2 -expr=a=b
import sys;
trace(argv("k"), argv("expr"), argv("missing", "fallback"));
