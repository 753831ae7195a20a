"""A checkout's bytecode, written ahead: for setup, and for the benchmarks that run another
checkout beside this one.

Where PYTHONDONTWRITEBYTECODE is set (this host, some managed machines), Python never writes
bytecode itself: every process of ours (the CLI, each rank) would compile every module it
imports at each start (a hello run under MPI: 0.23 s against 0.17 s here), and a benchmark
comparing two checkouts would time that instead of the code. (A module of its own, so that
the processes of a run do not import `subprocess` for it.)
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys


def byte_compile(checkout: str) -> None:
    """Write the missing or stale bytecode of every package of `checkout` (each directory with
    an __init__.py)."""
    packages = sorted(os.path.dirname(init) for init in glob.glob(os.path.join(checkout, "*", "__init__.py")))
    subprocess.run([sys.executable, "-m", "compileall", "-q", "-j", "0", *packages], check=True,
                   stdout=subprocess.DEVNULL)
