"""A worker's guard ends the apps the worker started when the worker dies by kill -9."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

from tests.marked import kill_marked, left_after, marked

ROOT = Path(__file__).resolve().parents[2]
MARK = "SWIFTCLOUD_GUARD_TEST"
# A stand-in worker: takes a guard, starts an app in a session of its own (as apps are),
# says so, and waits.
WORKER = """
import subprocess, sys
from engine.scheduler.lifetime import guard_apps
guard_apps()
app = subprocess.Popen(["sleep", "60"], start_new_session=True)
print(app.pid, flush=True)
sys.stdin.read()
"""


def test_an_app_dies_with_its_worker_killed_by_sigkill() -> None:
    mark = uuid.uuid4().hex
    worker = subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, env={**os.environ, "PYTHONPATH": str(ROOT), MARK: mark})
    try:
        app = int(worker.stdout.readline())
        assert app in {p.pid for p in marked(MARK, mark)}
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=30)
        alive = left_after(MARK, mark, timeout=20)
        assert not alive, f"left behind: {alive}"
    finally:
        worker.kill()
        kill_marked(MARK, mark)


def test_a_worker_that_ends_normally_takes_its_guard_along() -> None:
    mark = uuid.uuid4().hex
    worker = subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, env={**os.environ, "PYTHONPATH": str(ROOT), MARK: mark})
    try:
        worker.stdout.readline()
        worker.stdin.close()  # the worker ends by itself
        assert worker.wait(timeout=30) == 0
        alive = left_after(MARK, mark, timeout=20)
        assert not alive, f"left behind: {alive}"  # the guard ended the app, then itself
    finally:
        worker.kill()
        kill_marked(MARK, mark)

