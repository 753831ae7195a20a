"""Optional peer columns for the Python-task benchmark: Parsl and Dask, installed on demand.

`measure(peer, tasks)` installs the peer into this venv if it is missing (only
when the benchmark was asked for peers), then times `tasks` no-op tasks with
2 worker processes in a child process, from the first submission to the last
result (executor start-up excluded, as for the other columns). Returns tasks
per second, or None with a reason when the peer cannot be installed or run.

Run as a script, this module is that child: `python throughput_peers.py PEER N`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
import time
from typing import Callable

PACKAGES = {"parsl": ["parsl"], "dask": ["dask[distributed]"]}
MODULES = {"parsl": "parsl", "dask": "distributed"}


def noop(value: object) -> object:
    """The no-op task."""
    return value


def measure(peer: str, tasks: int, timeout: float = 900.0) -> tuple[float | None, str]:
    """Tasks per second of `peer` on `tasks` no-ops, or (None, why not)."""
    problem = _install(peer)
    if problem:
        return None, problem
    # Parsl starts helper commands (its interchange) by name from the venv's bin.
    path = os.pathsep.join([sysconfig.get_path("scripts"), os.environ.get("PATH", "")])
    try:
        with tempfile.TemporaryDirectory() as scratch:  # Parsl writes runinfo/ where it runs
            result = subprocess.run([sys.executable, os.path.abspath(__file__), peer, str(tasks)],
                                    capture_output=True, text=True, timeout=timeout, cwd=scratch,
                                    env={**os.environ, "PATH": path})
    except subprocess.TimeoutExpired:
        return None, f"{peer} did not finish {tasks} tasks within {timeout:.0f} s"
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    if result.returncode != 0 or not lines:
        return None, f"{peer} failed: {result.stderr.strip().splitlines()[-1:]}"
    return json.loads(lines[-1])["tasks_per_s"], ""


def _install(peer: str) -> str:
    if importlib.util.find_spec(MODULES[peer]) is not None:
        return ""
    result = subprocess.run([sys.executable, "-m", "pip", "install", "-q", *PACKAGES[peer]],
                            capture_output=True, text=True)
    if result.returncode != 0:
        return f"{peer} is not installable here: {result.stderr.strip().splitlines()[-1:]}"
    importlib.invalidate_caches()
    return ""


def _parsl(tasks: int) -> float:
    import parsl
    from parsl.config import Config
    from parsl.executors import HighThroughputExecutor
    from parsl.providers import LocalProvider

    executor = HighThroughputExecutor(label="htex", max_workers_per_node=2,
                                      provider=LocalProvider(init_blocks=1, max_blocks=1))
    parsl.load(Config(executors=[executor]))
    app = parsl.python_app(noop)
    for future in [app(i) for i in range(8)]:  # workers up and warm
        future.result()
    started = time.perf_counter()
    futures = [app(i) for i in range(tasks)]
    for future in futures:
        future.result()
    elapsed = time.perf_counter() - started
    parsl.dfk().cleanup()
    return tasks / elapsed


def _dask(tasks: int) -> float:
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        client.gather([client.submit(noop, i, pure=False) for i in range(8)])
        started = time.perf_counter()
        client.gather([client.submit(noop, i, pure=False) for i in range(tasks)])
        return tasks / (time.perf_counter() - started)


RUNNERS: dict[str, Callable[[int], float]] = {"parsl": _parsl, "dask": _dask}

if __name__ == "__main__":
    name, count = sys.argv[1], int(sys.argv[2])
    print(json.dumps({"peer": name, "tasks_per_s": RUNNERS[name](count)}), flush=True)
