"""Struct fields in the checker (§13, "a struct is its fields").

Every field of a struct variable is a future of its own, so the checker follows
fields as it follows variables:

- an assignment target is a variable, then fields, then keys (`r.X.A[i]`):
  `target_path` splits it so, and finds a field of an array element (`A[i].f`),
  which is a compile error (an element is assigned as a whole struct, so that
  it is a value passed on, not a variable written in place);
- the index-depth rule of §3 holds per array, so an array is named by its
  variable and field path (`r.X.A` and `r.C` are two arrays);
- `FieldSites` records which field paths of each variable are written, and
  which scalar or file fields are read, to report a field read that no
  statement can write ("read but never assigned", §9).

A field path is the field names from the variable down (`r.X.A` is
`("X", "A")`); a whole assignment of the variable writes the empty path, and
a written path covers every field under it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Optional

from engine.lang import ast
from engine.lang.symbols import VarSym

FieldPath = tuple[str, ...]
# Variables whose every write the checker sees: inputs are written by the caller,
# loop variables by their loop.
CHECKED_KINDS = frozenset({"local", "global", "output"})


@dataclass(frozen=True)
class TargetPath:
    """An assignment target taken apart: its root expression (a name, if it is
    assignable), the fields from the root and the number of keys after them — or
    `of_element`: a field follows a key (`A[i].f`, `r.L[j].x`), which no program may write."""

    root: ast.Expr
    fields: FieldPath
    keys: int
    of_element: bool = False


def target_path(target: ast.Expr) -> TargetPath:
    """Split `target` into root, fields and keys (see `TargetPath`)."""
    fields: list[str] = []
    keys = 0
    of_element = False
    node = target
    while isinstance(node, (ast.Index, ast.Field)):
        if isinstance(node, ast.Field):
            fields.append(node.name)
        else:
            keys += 1
            of_element = of_element or bool(fields)
        node = node.base
    if of_element:
        return TargetPath(node, (), keys, of_element)
    return TargetPath(node, tuple(reversed(fields)), keys)


def field_read(e: ast.Field) -> Optional[tuple[VarSym, FieldPath]]:
    """The variable and field path a field read names (`p.inner.x`), if it reaches a
    variable through fields only (a field of an array element is not followed)."""
    names: list[str] = []
    node: ast.Expr = e
    while isinstance(node, ast.Field):
        names.append(node.name)
        node = node.base
    sym = node.decl if isinstance(node, ast.Name) else None
    if not isinstance(sym, VarSym):
        return None
    return sym, tuple(reversed(names))


@dataclass
class FieldSites:
    """Where the fields of struct variables are written and read."""

    written: dict[VarSym, set[FieldPath]] = field(default_factory=dict)
    reads: list[tuple[VarSym, FieldPath, ast.Node]] = field(default_factory=list)

    def write(self, sym: VarSym, path: FieldPath) -> None:
        self.written.setdefault(sym, set()).add(path)

    def read(self, sym: VarSym, path: FieldPath, node: ast.Node) -> None:
        """A read of a scalar or file field (arrays and structs close empty or by their fields)."""
        if sym.kind in CHECKED_KINDS:
            self.reads.append((sym, path, node))

    def never_written(self) -> Iterator[tuple[ast.Node, str]]:
        """Each read of a field that no statement writes: its node and its full name."""
        for sym, path, node in self.reads:
            written = self.written.get(sym, ())
            if not any(path[:len(w)] == w for w in written):
                yield node, ".".join((sym.name,) + path)
