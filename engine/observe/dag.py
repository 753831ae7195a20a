"""The static dataflow graph of a program (`build_dag`), and writing it: DOT text, or PNG/SVG
through Graphviz."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator

import networkx as nx

from engine.errors import UsageError
from engine.lang import ir
from engine.lang.symbols import VarSym


def _children(node: ir.Node) -> Iterator[ir.Node]:
    """Direct child nodes of an IR node, in field order."""
    for name in node.__struct_fields__:
        value = getattr(node, name)
        items = value if isinstance(value, tuple) else (value,)
        for item in items:
            if isinstance(item, ir.Node):
                yield item
            elif isinstance(item, tuple):
                yield from (x for x in item if isinstance(x, ir.Node))


def _uses(node: ir.Node, reads: set[VarSym], calls: list[ir.Call]) -> None:
    if isinstance(node, ir.Var):
        reads.add(node.sym)
    if isinstance(node, ir.Call):
        calls.append(node)
    if isinstance(node, ir.Block):
        return
    for child in _children(node):
        _uses(child, reads, calls)


def _label(stmt: ir.Stmt, calls: list[ir.Call]) -> str:
    if calls:
        return ", ".join(dict.fromkeys(c.func.name for c in calls))
    return {"Declare": "declstmt", "CallStmt": "exprstmt"}.get(type(stmt).__name__, type(stmt).__name__.lower())


def _targets(stmt: ir.Stmt) -> list[VarSym]:
    out: list[VarSym] = []
    if isinstance(stmt, ir.Assign):
        for t in stmt.targets:
            while isinstance(t, (ir.Index, ir.Field)):
                t = t.base
            if isinstance(t, ir.Var):
                out.append(t.sym)
    elif isinstance(stmt, ir.Declare):
        out.extend(d.sym for d in stmt.decls if d.init is not None)
    return out


def build_dag(program: ir.Program) -> nx.DiGraph:
    """One node per simple statement (labelled with the functions it calls);
    an edge from each statement that assigns a variable to each that reads it."""
    graph = nx.DiGraph()
    writers: dict[int, list[str]] = {}
    readers: dict[int, list[str]] = {}

    def visit(stmts: tuple[ir.Stmt, ...], where: str) -> None:
        for stmt in stmts:
            nested = [c for c in _children(stmt) if isinstance(c, ir.Block)]
            if isinstance(stmt, ir.Chain):
                visit(stmt.links, where)
                continue
            node_id = f"{stmt.file}:{stmt.line}:{stmt.col}"
            reads: set[VarSym] = set()
            calls: list[ir.Call] = []
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

    visit(program.statements, "top level")
    for function in program.functions.values():
        if function.body is not None:
            visit(function.body.stmts, function.sym.name)
    for key, sources in writers.items():
        for src in sources:
            for dst in readers.get(key, []):
                if src != dst:
                    graph.add_edge(src, dst)
    return graph


def to_dot(graph: nx.DiGraph) -> str:
    """The graph in Graphviz DOT syntax, one box per statement."""
    ids = {node: f"n{i}" for i, node in enumerate(graph.nodes)}
    lines = ["digraph swiftcloud {", "  rankdir=TB;", '  node [shape=box, fontname="Helvetica"];']
    for node, data in graph.nodes(data=True):
        label = f"{data.get('label', '')}\\n{data.get('where', '')} line {data.get('line', '?')}"
        lines.append(f'  {ids[node]} [label="{_escape(label)}"];')
    for src, dst in graph.edges:
        lines.append(f"  {ids[src]} -> {ids[dst]};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _escape(text: str) -> str:
    return text.replace('"', '\\"')


def write_dag(graph: nx.DiGraph, output: str) -> None:
    """Write `graph` to `output`; the suffix (.dot, .png, .svg) picks the format."""
    fmt = os.path.splitext(output)[1].lower().lstrip(".")
    dot_text = to_dot(graph)
    if fmt in ("dot", "gv"):
        with open(output, "w", encoding="utf-8") as f:
            f.write(dot_text)
        return
    if fmt not in ("png", "svg", "pdf"):
        raise UsageError(f"unknown graph format '.{fmt}': use .dot, .png or .svg")
    dot = shutil.which("dot")
    if dot is None:
        raise UsageError("rendering PNG/SVG needs Graphviz's 'dot' (apt-get install graphviz);"
                         " or write .dot")
    result = subprocess.run([dot, f"-T{fmt}", "-o", output], input=dot_text.encode(),
                            capture_output=True, check=False)
    if result.returncode != 0:
        raise UsageError(f"dot failed: {result.stderr.decode(errors='replace').strip()}")
