"""How a new Python process of ours starts: this interpreter, with this checkout importable.

`swiftcloud_command(*words)` is the one command line that runs `swiftcloud WORDS` in a
new process (an MPI job's rank 0, a batch job's ranks, a study's runs): `python -m
swiftcloud`, the product's public entry, which every floor may run but none imports.
It is the whole product because such a process needs every package's part (the stores
and services they register); and it is this interpreter rather than the `swiftcloud`
console script, which may belong to another checkout.
"""

from __future__ import annotations

import os
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
