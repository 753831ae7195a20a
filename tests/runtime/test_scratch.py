"""Scratch directories name their owner, and a sweep removes those whose owner died (engine/task/scratch.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from engine.task import scratch

MAKE = "from engine.task import scratch; print(scratch.make('task'))"
ROOT = Path(__file__).resolve().parents[2]


def test_the_sweep_removes_a_dead_owners_directory_and_keeps_a_live_ones() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    orphan = Path(subprocess.run([sys.executable, "-c", MAKE], env=env, capture_output=True, text=True,
                                 check=True).stdout.strip())
    (orphan / "in").mkdir()
    (orphan / "in" / "copy.dat").write_bytes(b"x" * 100)
    mine = Path(scratch.make("engine"))
    try:
        assert orphan.name.startswith("swiftcloud-task-") and mine.name.startswith(f"swiftcloud-engine-{os.getpid()}.")
        removed = scratch.sweep()
        assert str(orphan) in removed and not orphan.exists()
        assert str(mine) not in removed and mine.is_dir()
    finally:
        os.rmdir(mine)


def test_a_reused_pid_does_not_keep_a_directory(tmp_path: Path) -> None:
    """Same PID, another start time: the owner is gone, the PID belongs to someone else now."""
    stale = Path(scratch.make("engine"))
    pid, _, rest = stale.name.removeprefix("swiftcloud-engine-").partition(".")
    impostor = stale.with_name(f"swiftcloud-engine-{pid}.1-{rest.partition('-')[2]}")
    stale.rename(impostor)
    assert str(impostor) in scratch.sweep() and not impostor.exists()
