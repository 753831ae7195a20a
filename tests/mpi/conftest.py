"""Fixtures for the MPI tests: run commands as a user would, and prove nothing is left behind.

Every command a test starts carries a unique `SWIFTCLOUD_TEST_MARK` in its
environment, which every MPI rank and app inherits; after the test no live
process may carry it (no hung ranks, no orphaned apps).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Iterator, Sequence

import psutil
import pytest

from engine.scheduler.launch import mpi_installed, venv_mpiexec
from tests.marked import marked as marked_by

REPO_ROOT = Path(__file__).resolve().parents[2]
MARK = "SWIFTCLOUD_TEST_MARK"

if not mpi_installed():
    pytest.skip("MPI is not installed (setup.d/10-mpi.sh installs mpi4py and mpich)",
                allow_module_level=True)


def marked(mark: str) -> list[psutil.Process]:
    """Live (non-zombie) processes whose environment carries `mark`."""
    return marked_by(MARK, mark)


@pytest.fixture
def mark() -> Iterator[str]:
    """A fresh marker; fails the test if a marked process outlives it."""
    value = uuid.uuid4().hex
    yield value
    deadline = time.monotonic() + 5.0
    while (left := marked(value)) and time.monotonic() < deadline:
        time.sleep(0.05)
    leftovers = [(p.pid, p.cmdline()) for p in left if p.is_running()]
    for process in left:
        process.kill()
    assert not leftovers, f"processes left behind: {leftovers}"


@pytest.fixture
def run(mark: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    """Run a command in `tmp_path` with the marker; returns the CompletedProcess."""

    def runner(command: Sequence[str], timeout: float = 120.0,
               env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        full_env = {**os.environ, MARK: mark, "PYTHONPATH": str(REPO_ROOT), **(env or {})}
        return subprocess.run(list(command), cwd=tmp_path, env=full_env, capture_output=True,
                              text=True, timeout=timeout, stdin=subprocess.DEVNULL)

    return runner


def swiftcloud(*args: str) -> list[str]:
    """The `swiftcloud` command line, through this interpreter."""
    return [sys.executable, "-m", "swiftcloud", *args]


def mpiexec(processes: int, *command: str) -> list[str]:
    """The venv's own mpiexec running `command` in `processes` ranks."""
    launcher = venv_mpiexec()
    assert launcher is not None
    return [launcher, "-n", str(processes), *command]
