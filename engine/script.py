"""A script compiled against the standard library: what `run`, `check`, `dag` and `submit` compile.

The engine's API for compiling a script file: the compiler (`engine.lang`) takes the
library as an argument; this is where the standard one (the runtime's builtins and
constants) is given to it. A script compiled before from the same files is taken from
`engine.script_cache`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from engine import script_cache
from engine.errors import UsageError
from engine.lang.ir import Program
from engine.runtime.builtins import BUILTINS, CONSTANTS


def compile_script(path: str, include: Sequence[str] = ()) -> Program:
    """Compile the script file at `path` (searching `include` for its imports); its
    warnings are in `program.warnings`. A missing file is a usage error."""
    if not os.path.isfile(path):
        raise UsageError(f"no such script: {path}")
    entry = script_cache.entry_for(path, include)
    program = script_cache.load(entry) if entry is not None else None
    if program is not None:
        return program
    # Deferred: a cached script needs no compiler (lark, the checker: 17 ms of start-up).
    from engine.lang.compile import compile as compile_program

    program = compile_program(path, BUILTINS, CONSTANTS, include)
    if entry is not None:
        script_cache.save(entry, program)
    return program
