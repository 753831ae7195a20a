"""The compiled program handed to the runtime, and its static dataflow graph.

The IR is the checked AST itself: every name resolved to its `VarSym`, every
expression typed, every call resolved, and each statement annotated with the
containers it writes (`Stmt.writes`) — what the runtime needs to execute it
as dataflow. `build_dag` derives the static task graph (networkx) from the
def-use relation between statements, for `swiftcloud dag` and for checks.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Iterator, Optional

from engine.lang import ast
from engine.lang.check import CheckedProgram
from engine.lang.deep_stack import call_with_deep_stack
from engine.lang.symbols import FuncSym, VarSym

if TYPE_CHECKING:
    import networkx as nx


@dataclass
class Program:
    """A checked program ready to run; `dag` is built on first use (networkx
    is slow to import, and running a program does not need the graph)."""

    path: str
    checked: CheckedProgram

    @cached_property
    def dag(self) -> "nx.DiGraph":
        return call_with_deep_stack(lambda: build_dag(self.checked))

    @property
    def functions(self) -> dict[str, FuncSym]:
        return self.checked.functions

    @property
    def main(self) -> Optional[FuncSym]:
        return self.checked.main


def _children(node: object) -> Iterator[ast.Node]:
    """Direct child nodes of an AST node, in field order."""
    for value in vars(node).values():
        if isinstance(value, ast.Node):
            yield value
        elif isinstance(value, (list, tuple)):
            for item in value:
                if isinstance(item, ast.Node):
                    yield item
                elif isinstance(item, tuple):
                    yield from (x for x in item if isinstance(x, ast.Node))


def _uses(node: ast.Node, reads: set[VarSym], calls: list[ast.Call]) -> None:
    if isinstance(node, ast.Name) and isinstance(node.decl, VarSym):
        reads.add(node.decl)
    if isinstance(node, ast.Call):
        calls.append(node)
    if isinstance(node, (ast.Block, ast.FuncDef)):
        return
    for child in _children(node):
        _uses(child, reads, calls)


def _label(stmt: ast.Stmt, calls: list[ast.Call]) -> str:
    if calls:
        return ", ".join(dict.fromkeys(c.func for c in calls))
    return type(stmt).__name__.lower()


def build_dag(checked: CheckedProgram) -> "nx.DiGraph":
    """One node per simple statement (labelled with the functions it calls);
    an edge from each statement that assigns a variable to each that reads it."""
    import networkx as nx

    graph = nx.DiGraph()
    writers: dict[int, list[str]] = {}
    readers: dict[int, list[str]] = {}

    def visit(stmts: list[ast.Stmt], where: str) -> None:
        for stmt in stmts:
            nested = [c for c in _children(stmt) if isinstance(c, ast.Block)]
            nested += [c.body for c in getattr(stmt, "cases", [])]
            if isinstance(stmt, ast.Chain):
                visit(stmt.links, where)
                continue
            node_id = f"{stmt.file}:{stmt.line}:{stmt.col}"
            reads: set[VarSym] = set()
            calls: list[ast.Call] = []
            _uses(stmt, reads, calls)
            written = _targets(stmt)
            graph.add_node(node_id, label=_label(stmt, calls), where=where, line=stmt.line,
                           kind=type(stmt).__name__)
            for sym in written:
                writers.setdefault(id(sym), []).append(node_id)
            for sym in reads - set(written):
                readers.setdefault(id(sym), []).append(node_id)
            for block in nested:
                visit(block.stmts, where)

    visit(checked.statements, "top level")
    for func in checked.functions.values():
        body = getattr(func.node, "body", None)
        if body is not None:
            visit(body.stmts, func.name)
    for key, sources in writers.items():
        for src in sources:
            for dst in readers.get(key, []):
                if src != dst:
                    graph.add_edge(src, dst)
    return graph


def _targets(stmt: ast.Stmt) -> list[VarSym]:
    out: list[VarSym] = []
    if isinstance(stmt, ast.Assign):
        for t in stmt.targets:
            while isinstance(t, (ast.Index, ast.Field)):
                t = t.base
            if isinstance(t, ast.Name) and isinstance(t.decl, VarSym):
                out.append(t.decl)
    elif isinstance(stmt, ast.DeclStmt):
        out.extend(d.sym for d in stmt.decls if d.init is not None and hasattr(d, "sym"))
    return out
