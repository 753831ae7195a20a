"""The house of floors (docs/architecture.md): imports run down, never up, and a run's state
lives in its Run.

Every package stands on a floor (`FLOORS`) and imports only packages on floors below it:
the ground floor (`hostkit`, host plumbing) imports none of ours, the roof (`swiftcloud`,
the command line) is imported by none. Imports are read from the source (every `import`,
at module level, inside functions and under `TYPE_CHECKING` alike) and resolved to this
repository's files; no two files import each other, even through others. Strings that name
one of our modules (a registry's `"package.module:Class"`, `importlib`'s argument, the
`MODULE` of a `python -m MODULE` command line) obey the floors too, so no arrow hides up
in a string. Inside the engine: the compiler (`engine/lang`) imports nothing that runs
programs; the runtime sees of the compiler only its IR, types and symbols; the worker-side
package (`engine/task`) depends on neither the runtime nor the scheduler. And no module of
`engine/` keeps mutable state of its own: two runs in one process give what two processes give.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1]
# Each package's floor; a package imports only packages on lower floors. Why each is where it is:
FLOORS = {
    "hostkit": 0,           # ground: processes, ports, mounts, the MPICH sweep, shared errors, redaction
    "storage_adapters": 1,  # one API over every store, and the servers and mounts of its own backends
    "engine": 2,            # compiler, runtime, scheduler, workers: stores only through the storage API
    "mosastore": 3,         # a store of its own, plugged into the storage API from above: the engine never names it
    "cluster": 4,           # the emulated cluster: runs the engine's ranks and MosaStore's daemons on its nodes
    "apps": 4,              # the science workflows' programs (one reads the engine's run log)
    "batch": 5,             # batch jobs: brings up MosaStore and the cluster's network namespace for a trial Slurm
    "study": 5,             # the storage study: runs the apps on the cluster's stores
    "bench": 5,             # the measurements: anything below
    "swiftcloud": 6,        # roof: the command line, assembling every package's commands
}
# The roof's entry: imported by none, run by any floor through the one command line that names it.
PRODUCT_ENTRY, PRODUCT_COMMAND = "swiftcloud", "hostkit.program"


def modules() -> dict[str, Path]:
    found = {}
    for package in FLOORS:
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


MODULE_PATH = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+(:[A-Za-z_][A-Za-z0-9_]*)?")


def modules_named_in_strings(module: str) -> Iterator[tuple[str, str]]:
    """(string, module of ours it names): whole strings that are a dotted module path (a
    registry's "package.module:Class", importlib's argument), and the MODULE after a "-m"."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and MODULE_PATH.fullmatch(node.value):
            name = node.value.partition(":")[0]
            if name in MODULES:
                yield node.value, name
        elif isinstance(node, (ast.List, ast.Tuple)):
            words = [element.value if isinstance(element, ast.Constant) else None for element in node.elts]
            for flag, word in zip(words, words[1:]):
                if flag == "-m" and isinstance(word, str) and _resolve(word) == word:
                    yield word, word


def floor(module: str) -> int:
    return FLOORS[module.split(".")[0]]


GRAPH = nx.DiGraph()
for _module in MODULES:
    GRAPH.add_node(_module)
    GRAPH.add_edges_from((_module, target) for target in imports_of(_module))


def edges(source: str, target: str) -> list[tuple[str, str]]:
    """Imports from modules under `source` to modules under `target`."""
    def under(name: str, prefix: str) -> bool:
        return name == prefix or name.startswith(prefix + ".")
    return sorted((a, b) for a, b in GRAPH.edges if under(a, source) and under(b, target))


def test_every_package_has_a_floor() -> None:
    packages = {path.parent.name for path in ROOT.glob("*/__init__.py")} - {"tests"}
    assert packages <= set(FLOORS)


def test_every_import_goes_down_a_floor() -> None:
    upward = [(a, b) for a, b in GRAPH.edges
              if a.split(".")[0] != b.split(".")[0] and floor(b) >= floor(a)]
    assert upward == []


def test_no_string_names_a_module_on_a_higher_floor() -> None:
    upward = [(module, text) for module in MODULES for text, named in modules_named_in_strings(module)
              if module.split(".")[0] != named.split(".")[0] and floor(named) >= floor(module)
              and (named, module) != (PRODUCT_ENTRY, PRODUCT_COMMAND)]
    assert upward == []


def test_the_roof_is_imported_by_none_and_run_by_one_command_line() -> None:
    assert [a for a, b in GRAPH.edges if b.split(".")[0] == PRODUCT_ENTRY and a.split(".")[0] != PRODUCT_ENTRY] == []
    assert (ROOT / PRODUCT_ENTRY / "__main__.py").is_file()
    assert PRODUCT_COMMAND in MODULES and (PRODUCT_ENTRY, PRODUCT_ENTRY) in modules_named_in_strings(PRODUCT_COMMAND)


def test_no_import_loops_between_files() -> None:
    loops = [sorted(component) for component in nx.strongly_connected_components(GRAPH) if len(component) > 1]
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
from swiftcloud.cli import main
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
