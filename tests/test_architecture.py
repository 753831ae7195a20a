"""The one-way house (docs/architecture.md): imports run one way, and a run's state lives in its Run.

Imports are read from the source (every `import`, at module level, inside
functions and under `TYPE_CHECKING` alike) and resolved to this repository's
files. Then: no two files of `engine/`, `storage_adapters/` or `mosastore/` import
each other, even through others; the storage layer imports nothing of the engine; the
compiler (`engine/lang`) imports nothing that runs programs; the runtime sees of
the compiler only its IR, types and symbols; the worker-side package
(`engine/task`) depends on neither the runtime nor the scheduler. And no module
of `engine/` keeps mutable state of its own: two runs in one process give what
two processes give.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "storage_adapters", "mosastore", "batch", "cluster", "study")


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


MODULES = modules()


def _resolve(name: str) -> str | None:
    """The module of ours that `name` (a module, or a name inside one) refers to."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str) -> Iterator[str]:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            targets = [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            resolved = _resolve(target)
            if resolved is not None and resolved != module:
                yield resolved


GRAPH = nx.DiGraph()
for _module in MODULES:
    GRAPH.add_node(_module)
    GRAPH.add_edges_from((_module, target) for target in imports_of(_module))


def edges(source: str, target: str) -> list[tuple[str, str]]:
    """Imports from modules under `source` to modules under `target`."""
    def under(name: str, prefix: str) -> bool:
        return name == prefix or name.startswith(prefix + ".")
    return sorted((a, b) for a, b in GRAPH.edges if under(a, source) and under(b, target))


def test_no_import_loops_in_the_engine_or_the_storage_layer() -> None:
    ours = GRAPH.subgraph(m for m in MODULES if m.split(".")[0] in ("engine", "storage_adapters", "mosastore"))
    loops = [sorted(component) for component in nx.strongly_connected_components(ours) if len(component) > 1]
    assert loops == []


def test_storage_imports_nothing_of_the_engine() -> None:
    for storage in ("storage_adapters", "mosastore"):
        assert edges(storage, "engine") == []
        assert edges(storage, "batch") == []


def test_the_compiler_imports_nothing_that_runs_programs() -> None:
    for layer in ("engine.runtime", "engine.scheduler", "engine.task", "engine.observe", "storage_adapters"):
        assert edges("engine.lang", layer) == []


def test_the_runtime_sees_only_the_ir_types_and_symbols_of_the_compiler() -> None:
    allowed = {"engine.lang.ir", "engine.lang.types", "engine.lang.symbols"}
    for layer in ("engine.runtime", "engine.scheduler", "engine.task", "engine.observe"):
        assert [(a, b) for a, b in edges(layer, "engine.lang") if b not in allowed] == []


def test_the_worker_side_depends_on_neither_the_runtime_nor_the_scheduler() -> None:
    assert edges("engine.task", "engine.runtime") == []
    assert edges("engine.task", "engine.scheduler") == []
    assert edges("engine.scheduler", "engine.runtime") == []


def _module_level_state(path: Path) -> list[str]:
    """Module-level names bound to mutable containers or counters, and `global` statements."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = [f"{path.name}:{node.lineno}: global {', '.join(node.names)}"
             for node in ast.walk(tree) if isinstance(node, ast.Global)]
    mutable_calls = {"dict", "list", "set", "deque", "defaultdict", "OrderedDict", "count", "Counter"}
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            value = node.value
            called = value.func.attr if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) else (
                value.func.id if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) else "")
            if isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)) \
                    or called in mutable_calls:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [t.id for t in targets if isinstance(t, ast.Name)]
                found += [f"{path.name}:{node.lineno}: {name}" for name in names if name != "__all__"]
    return found


def test_no_module_of_the_engine_keeps_mutable_state() -> None:
    state = [entry for module, path in MODULES.items() if module.startswith("engine")
             for entry in _module_level_state(path)]
    assert state == []


TWO_RUNS = """
import sys
from engine.cli import main
for _ in range(2):
    status = main(["run", "--transport", "local", "-n", "3", "--run-dir", sys.argv[2] + "/" + str(_),
                   sys.argv[1]])
    print("status", status, flush=True)
"""
PROGRAM = """
import io;
app (file o) numbers (int n) { "seq" n @stdout=o }
int total[];
foreach i in [1:40] {
  file f = numbers(i);
  total[i] = size(file_lines(f)) * i;
}
printf("sum %i", sum_integer(total));
string seen = python_persist("calls = globals().get('calls', 0) + 1", "str(calls)");
printf("persist %s", seen);
"""


@pytest.mark.parametrize("runs_per_process", [1, 2])
def test_two_runs_in_one_process_give_what_two_processes_give(tmp_path: Path, runs_per_process: int) -> None:
    script = tmp_path / "two.swift"
    script.write_text(PROGRAM)
    code = TWO_RUNS.replace("range(2)", f"range({runs_per_process})")
    outputs = []
    for process in range(2 // runs_per_process):
        done = subprocess.run([sys.executable, "-c", code, str(script), str(tmp_path / f"runs-{process}")],
                              cwd=tmp_path, capture_output=True, text=True, timeout=300,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    together = "".join(outputs)
    expected = sum(i * i for i in range(1, 41))
    assert together == f"persist 1\nsum {expected}\nstatus 0\n" * 2  # persist is first: it waits for nothing


def test_the_study_sits_on_top_only_the_cli_reaches_it() -> None:
    assert {a for a, _ in edges("engine", "study")} <= {"engine.cli"}
    for package in ("storage_adapters", "mosastore", "cluster", "batch"):
        assert edges(package, "study") == []
