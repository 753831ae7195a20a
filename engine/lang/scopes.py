"""Lexical scopes and the bookkeeping behind the single-assignment checks.

A `Scope` maps names to `VarSym`s and knows its loop depth (assignments to a
scalar declared outside the innermost loop are certain double assignments).
`BranchPath` records which alternative branches a statement sits in, so that
two assignments are a certain double assignment only when no `if`/`switch`
separates them into alternatives.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Optional

from engine.lang.symbols import VarSym

BranchPath = tuple[tuple[int, int], ...]
_group_ids = itertools.count(1)


def new_branch_group() -> int:
    """A fresh id for one `if` or `switch` (its branches are alternatives)."""
    return next(_group_ids)


def are_alternatives(a: BranchPath, b: BranchPath) -> bool:
    """True when the two paths take different branches of some common if/switch."""
    groups_a = dict(a)
    return any(g in groups_a and groups_a[g] != idx for g, idx in b)


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
    whole: set[int] = field(default_factory=set)
    elementwise: set[int] = field(default_factory=set)

    def add_scalar(self, key: object, path: BranchPath) -> bool:
        """Record an assignment of `key` (a symbol, or a symbol and field);
        False if it certainly repeats an earlier one."""
        sites = self.scalar_sites.setdefault(key, [])
        clash = any(not are_alternatives(path, other) for other in sites)
        sites.append(path)
        return not clash

    def add_container(self, sym: VarSym, whole: bool) -> bool:
        """Record a whole or element write; False when both kinds are mixed."""
        (self.whole if whole else self.elementwise).add(id(sym))
        return not (id(sym) in self.whole and id(sym) in self.elementwise)
