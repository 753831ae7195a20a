"""Killing the engine ends everything it started (issue 16 item 4).

A run of two long apps is interrupted with SIGTERM or kill -9 of the
`swiftcloud` process, under the local and the MPI transport. Every process the
run started carries a unique marker in its environment; once the engine is
gone, no live process may carry it: no worker, no rank, no mpiexec, no app.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psutil
import pytest

from tests.marked import kill_marked, left_after, marked

ROOT = Path(__file__).resolve().parents[1]
MARK = "SWIFTCLOUD_KILL_TEST"
SCRIPT = """
app (void o) nap(string marker) { "sh" "-c" "echo $$ > \\"$1\\"; exec sleep 60" "x" marker }
foreach i in [1:2] { nap("started-" + i); }
"""


def _marked(mark: str) -> list[psutil.Process]:
    return marked(MARK, mark)


@pytest.mark.parametrize("transport", ["local", "mpi"])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
def test_killing_the_engine_leaves_no_process(tmp_path: Path, transport: str, signum: int) -> None:
    (tmp_path / "naps.swift").write_text(SCRIPT)
    mark = uuid.uuid4().hex
    env = {**os.environ, "PYTHONPATH": str(ROOT), MARK: mark}
    engine = subprocess.Popen([sys.executable, "-m", "swiftcloud", "run", "-n", "3", "--transport", transport,
                               "naps.swift"], cwd=tmp_path, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # Each app writes its PID, then becomes `sleep`: a file may be read before its line is
        # whole, and an app's environment found empty while it execs, so both are awaited.
        deadline = time.monotonic() + 60
        while (apps := _started(tmp_path)) is None or not set(apps) <= {p.pid for p in _marked(mark)}:
            assert engine.poll() is None, "the run ended before its apps started"
            assert time.monotonic() < deadline, f"the apps never started, or not marked: {apps}"
            time.sleep(0.05)
        engine.send_signal(signum)
        engine.wait(timeout=30)
        alive = left_after(MARK, mark, timeout=20)
        assert not alive, f"left behind: {alive}"
    finally:
        if engine.poll() is None:
            engine.kill()
        kill_marked(MARK, mark)


def _started(directory: Path) -> list[int] | None:
    """The PIDs the two apps wrote, once both lines are whole."""
    lines = [(directory / f"started-{i}").read_text() if (directory / f"started-{i}").exists() else ""
             for i in (1, 2)]
    return [int(line) for line in lines] if all(line.endswith("\n") for line in lines) else None


def test_a_lost_workers_app_is_ended_and_its_task_runs_again(tmp_path: Path) -> None:
    """kill -9 of a local worker: the app it ran (in a session of its own, so not in the
    worker's group) is found and ended, and the task runs again elsewhere (issue 16 item 1)."""
    (tmp_path / "once.swift").write_text(
        'app (file o) once() { "sh" "-c" "if [ -e first ]; then echo second; '
        'else echo $$ > first.tmp; mv first.tmp first; sleep 60; echo first; fi" @stdout=o }\n'
        'file f <"result.txt"> = once();\n')
    mark = uuid.uuid4().hex
    env = {**os.environ, "PYTHONPATH": str(ROOT), MARK: mark}
    engine = subprocess.Popen([sys.executable, "-m", "swiftcloud", "run", "-n", "3", "--transport", "local",
                               "once.swift"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "first").exists():
            assert engine.poll() is None and time.monotonic() < deadline, "the app never started"
            time.sleep(0.05)
        app = psutil.Process(int((tmp_path / "first").read_text()))
        worker = app.parent()
        assert worker is not None and worker.pid != engine.pid
        worker.kill()
        app.wait(timeout=20)  # ended by the engine once it saw the worker go (TimeoutExpired otherwise)
        out, err = engine.communicate(timeout=60)
    finally:
        if engine.poll() is None:
            engine.kill()
        kill_marked(MARK, mark)
    assert engine.returncode == 0, err
    assert (tmp_path / "result.txt").read_text() == "second\n"
