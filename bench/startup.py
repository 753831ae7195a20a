#!/usr/bin/env python3
"""Benchmark: where a hello-world run's fixed cost goes (issue 32's breakdown).

Each step adds one thing to the one before, so the differences of their medians are
the costs of what it adds (all wall seconds, `--repeat` runs each, the steps interleaved):

- python: the interpreter alone (`python -c pass`, with the venv's `site`);
- imports: `import swiftcloud.cli` (what every command loads before it parses);
- compile_cold: imports + compiling hello.swift in the same process, with an empty
  compiled-script cache (the compiler's own imports included: lark, the parser, the
  checker);
- compile: the same, the script taken from the cache (engine.script_cache), as every
  run of an unchanged script after the first;
- local: `swiftcloud run --transport local hello.swift` (worker processes, run log);
- mpi_bare: `mpiexec -n N python -c "from mpi4py import MPI"` (MPI start-up alone);
- mpi: `swiftcloud run -n N hello.swift` (what a user types: MPI by default).

Prints one JSON line: each step's median and the differences between neighbours.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from throughput_ours import HELLO, ROOT  # noqa: E402  (puts the checkout on the path)

from engine.scheduler.launch import MPICH_SETTINGS, venv_mpiexec  # noqa: E402
from hostkit.bytecode import byte_compile  # noqa: E402
from hostkit.program import swiftcloud_command  # noqa: E402


def steps(script: str, processes: int) -> dict[str, list[str]]:
    """Each step's command line, in the order they add to each other."""
    mpiexec = venv_mpiexec() or "mpiexec"
    compiling = (f"import swiftcloud.cli\nfrom engine.script import compile_script\n"
                 f"compile_script({script!r})\n")
    empty_cache = "import os, tempfile\nos.environ['XDG_CACHE_HOME'] = tempfile.mkdtemp(dir='.')\n"
    return {
        "python": [sys.executable, "-c", "pass"],
        "imports": [sys.executable, "-c", "import swiftcloud.cli"],
        "compile_cold": [sys.executable, "-c", empty_cache + compiling],
        "compile": [sys.executable, "-c", compiling],
        "local": swiftcloud_command("run", "--transport", "local", script),
        "mpi_bare": [mpiexec, "-n", str(processes), sys.executable, "-c", "from mpi4py import MPI"],
        "mpi": swiftcloud_command("run", "-n", str(processes), script),
    }


def timed(argv: list[str], cwd: str, env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr[-1000:]}")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--processes", type=int, default=3, help="MPI ranks (default 3)")
    parser.add_argument("--repeat", type=int, default=7, help="runs of each step (default 7)")
    options = parser.parse_args()
    byte_compile(str(ROOT))  # what is timed is our start, not the compiling of edited modules
    env = {**os.environ, "PYTHONPATH": str(ROOT), **MPICH_SETTINGS}
    with tempfile.TemporaryDirectory(prefix="swiftcloud-startup-") as scratch:
        script = os.path.join(scratch, "hello.swift")
        Path(script).write_text(HELLO)
        commands = steps(script, options.processes)
        times: dict[str, list[float]] = {name: [] for name in commands}
        timed(commands["compile"], scratch, env)  # the cache holds the script before any step is timed
        for _ in range(options.repeat):
            for name, argv in commands.items():
                times[name].append(timed(argv, scratch, env))
    medians = {name: round(statistics.median(values), 4) for name, values in times.items()}
    names = list(medians)
    added = {f"{later} - {earlier}": round(medians[later] - medians[earlier], 4)
             for earlier, later in zip(names, names[1:]) if later != "mpi_bare"}
    print(json.dumps({"benchmark": "startup", "processes": options.processes, "repeat": options.repeat,
                      "median_s": medians, "added_s": added,
                      "spread_s": {name: [round(min(v), 4), round(max(v), 4)] for name, v in times.items()}}))


if __name__ == "__main__":
    main()
