"""Environments: which run-time value each variable symbol has in one scope instance.

Scopes nest (a loop iteration inside a function call inside the globals); a
lookup walks outward. Keys are the checker's `VarSym` objects, so names never
need resolving at run time.
"""

from __future__ import annotations

from typing import Any, Optional

from engine.lang.symbols import VarSym


class Env:
    """One instance of a scope: `vars` maps symbols to values; `parent` is the enclosing one."""

    __slots__ = ("vars", "parent")

    def __init__(self, parent: Optional["Env"] = None, bindings: Optional[dict[VarSym, Any]] = None) -> None:
        self.vars: dict[VarSym, Any] = bindings if bindings is not None else {}
        self.parent = parent

    def lookup(self, sym: VarSym) -> Any:
        env: Optional[Env] = self
        while env is not None:
            value = env.vars.get(sym)
            if value is not None:
                return value
            env = env.parent
        raise KeyError(f"internal error: no value for variable '{sym.name}' (please report)")
