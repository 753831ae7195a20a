"""The standard library: every builtin function and constant, by name.

`BUILTINS` maps each callable name (aliases included) to its `Builtin` record:
overload signatures for the type checker, the implementation the runtime calls
as `impl(ctx, *args)`, the module that makes it visible, and where it runs.
`CONSTANTS` maps `PI`, `E` and the `CLOCK_FMT_*` formats to `(type text, value, module)`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType

from engine.runtime.builtins import (
    assertions,
    convert,
    core,
    files,
    mathlib,
    mpe,
    pycalls,
    stats,
    strings,
    sysargs,
)
from engine.runtime.builtins.context import BuiltinContext, SimpleContext
from engine.runtime.builtins.spec import Builtin

_LIBRARY_MODULES = (core, convert, strings, mathlib, stats, sysargs, files, assertions, pycalls, mpe)


def _collect() -> dict[str, Builtin]:
    registry: dict[str, Builtin] = {}
    for library in _LIBRARY_MODULES:
        for table in library.TABLES:
            for entry in table.entries:
                if entry.name in registry:
                    raise RuntimeError(f"builtin {entry.name!r} is defined twice")
                registry[entry.name] = entry
    return dict(sorted(registry.items()))


BUILTINS: dict[str, Builtin] = _collect()
CONSTANTS: Mapping[str, tuple[str, object, str]] = MappingProxyType({**mathlib.CONSTANTS, **sysargs.CONSTANTS})

__all__ = ["BUILTINS", "CONSTANTS", "Builtin", "BuiltinContext", "SimpleContext", "worker_builtins"]


def worker_builtins(called: Iterable[str]) -> dict[str, Callable[..., object]]:
    """The implementations of those of the `called` builtins that run on workers, by name (a
    task runner's table)."""
    return {name: BUILTINS[name].impl for name in sorted(called) if BUILTINS[name].where == "worker"}
