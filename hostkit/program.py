"""How a new Python process of ours starts: this interpreter, with this checkout importable.

`swiftcloud_command(*words)` is the one command line that runs `swiftcloud WORDS` in a
new process (an MPI job's rank 0, a batch job's ranks, a study's runs): `python -m
swiftcloud`, the product's public entry, which every floor may run but none imports.
It is the whole product because such a process needs every package's part (the stores
and services they register); and it is this interpreter rather than the `swiftcloud`
console script, which may belong to another checkout.

`byte_compile(checkout)` writes a checkout's bytecode, for setup and for the benchmarks that
run another checkout beside this one.
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from collections.abc import Mapping

PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def swiftcloud_command(*words: str) -> list[str]:
    """The argv that runs `swiftcloud WORDS` in a new process (give it `importable(...)`)."""
    return [sys.executable, "-m", "swiftcloud", *words]  # the roof's __main__ (docs/architecture.md)


def importable(env: Mapping[str, str]) -> dict[str, str]:
    """`env` with this checkout first on PYTHONPATH (once), so `python -m` finds our modules anywhere."""
    paths = [PROJECT_ROOT] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != PROJECT_ROOT]
    return {**env, "PYTHONPATH": os.pathsep.join(paths)}


def module_environment() -> dict[str, str]:
    """Our environment, with this checkout importable and without an emulated node name."""
    return importable({key: value for key, value in os.environ.items() if key != "SWIFTCLOUD_NODE"})


def byte_compile(checkout: str) -> None:
    """Write the missing or stale bytecode of every package of `checkout` (each directory with
    an __init__.py). Where PYTHONDONTWRITEBYTECODE is set (this host, some managed machines),
    Python never writes it itself: every process of ours (the CLI, each rank) would compile every
    module it imports at each start (a hello run under MPI: 0.23 s against 0.17 s here), and a
    benchmark comparing two checkouts would time that instead of the code."""
    packages = sorted(os.path.dirname(init) for init in glob.glob(os.path.join(checkout, "*", "__init__.py")))
    subprocess.run([sys.executable, "-m", "compileall", "-q", "-j", "0", *packages], check=True,
                   stdout=subprocess.DEVNULL)
