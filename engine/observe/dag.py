"""Writing the static dataflow graph: DOT text, or PNG/SVG through Graphviz."""

from __future__ import annotations

import os
import shutil
import subprocess

import networkx as nx

from engine.errors import UsageError


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
