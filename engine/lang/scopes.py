"""Lexical scopes and the bookkeeping behind the single-assignment checks.

A `Scope` maps names to `VarSym`s and knows its loop depth (assignments to a
scalar declared outside the innermost loop are certain double assignments).
`BranchPath` records which branches of which `if`/`switch` a statement sits
in. Two assignments are a certain double assignment only when one runs
whenever the other does (§12 "Conditional writes"): writes in alternative
branches, or in separate `if`s, are legal, and a second write that does
happen at run time is a run-time error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from engine.lang.symbols import VarSym

BranchPath = tuple[tuple[int, int], ...]  # (branch group: one if/switch, which branch of it), outermost first


def certainly_both(a: BranchPath, b: BranchPath) -> bool:
    """True when a statement at `b` cannot run without one at `a` running too, or
    conversely: one path is the start of the other."""
    shorter, longer = (a, b) if len(a) <= len(b) else (b, a)
    return longer[: len(shorter)] == shorter


@dataclass(eq=False)
class Scope:
    """One `{}` block (or function, or loop) scope."""

    parent: Optional["Scope"]
    kind: str  # "global", "function", "block", "loop"
    loop_depth: int = 0
    vars: dict[str, VarSym] = field(default_factory=dict)
    declared: list[VarSym] = field(default_factory=list)

    def lookup(self, name: str) -> Optional[VarSym]:
        scope: Optional[Scope] = self
        while scope is not None:
            sym = scope.vars.get(name)
            if sym is not None:
                return sym
            scope = scope.parent
        return None

    def lookup_local(self, name: str) -> Optional[VarSym]:
        """A visible declaration that is not a global (locals cannot be shadowed)."""
        scope: Optional[Scope] = self
        while scope is not None and scope.kind != "global":
            sym = scope.vars.get(name)
            if sym is not None:
                return sym
            scope = scope.parent
        return None

    def in_function(self) -> bool:
        scope: Optional[Scope] = self
        while scope is not None:
            if scope.kind == "function":
                return True
            scope = scope.parent
        return False


@dataclass
class AssignmentSites:
    """Where each variable is assigned, to find certain double assignments."""

    scalar_sites: dict[object, list[BranchPath]] = field(default_factory=dict)
    whole: dict[int, list[BranchPath]] = field(default_factory=dict)
    elementwise: dict[int, list[BranchPath]] = field(default_factory=dict)

    def add_scalar(self, key: object, path: BranchPath) -> bool:
        """Record an assignment of `key` (a symbol, or a symbol and field);
        False if it certainly repeats an earlier one."""
        sites = self.scalar_sites.setdefault(key, [])
        clash = any(certainly_both(path, other) for other in sites)
        sites.append(path)
        return not clash

    def add_container(self, sym: VarSym, whole: bool, path: BranchPath) -> bool:
        """Record a whole or element write; False when both kinds certainly happen."""
        mine, other = (self.whole, self.elementwise) if whole else (self.elementwise, self.whole)
        mine.setdefault(id(sym), []).append(path)
        return not any(certainly_both(path, p) for p in other.get(id(sym), ()))
