"""The suite's check that nothing is left behind (tests/leftovers.py): what it claims as this
session's, and how it knows another session runs beside it."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import tempfile
from pathlib import Path

from tests.leftovers import SUITE_MARK, Snapshot, other_sessions, session_directory


def test_a_sessions_own_leftovers_are_told_from_unclaimed_ones(tmp_path: Path) -> None:
    mark = os.environ[SUITE_MARK]
    snapshot = Snapshot.take()
    entry = tempfile.mkdtemp(prefix="swiftcloud-leftovers-test-")  # in the system's: anyone's
    process = subprocess.Popen(["sleep", "60"])  # carries this session's mark
    try:
        left = snapshot.left_behind(mark, str(tmp_path))
        assert entry in left.unclaimed and not any(entry in line for line in left.ours)
        assert any(line.startswith(f"process {process.pid}:") for line in left.ours), left.ours
    finally:
        process.kill()
        process.wait()
        os.rmdir(entry)
    left = snapshot.left_behind(mark, str(tmp_path))
    assert entry not in left.unclaimed and not any(line.startswith(f"process {process.pid}:") for line in left.ours)


def test_another_running_session_is_found_by_its_mark_and_its_directory() -> None:
    other = secrets.token_hex(8)
    directory = session_directory(other)
    theirs = subprocess.Popen(["sleep", "60"], env={**os.environ, SUITE_MARK: other})
    ours = subprocess.Popen(["sleep", "60"])
    try:
        found = other_sessions(os.environ[SUITE_MARK])
        assert theirs.pid in found and ours.pid not in found
        os.rmdir(directory)  # that session has ended: a process it leaked is no session beside this one
        assert theirs.pid not in other_sessions(os.environ[SUITE_MARK])
    finally:
        for process in (theirs, ours):
            process.kill()
            process.wait()
        shutil.rmtree(directory, ignore_errors=True)
