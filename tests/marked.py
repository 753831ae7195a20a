"""Finding the processes a test started, by a marker every one of them inherits.

A test puts a fresh value in an environment variable of the command it runs;
ranks, workers and apps inherit it, so after the test no live process may
carry it. Tests use this only to assert and to clean up what they started.
"""

from __future__ import annotations

import contextlib
import time

import psutil

from engine.scheduler.lifetime import pids_with_env


def marked(variable: str, mark: str) -> list[psutil.Process]:
    """Live (non-zombie) processes whose environment has `variable` = `mark`."""
    found = []
    for pid in pids_with_env(variable, mark):
        try:
            process = psutil.Process(pid)
            if process.status() != psutil.STATUS_ZOMBIE:
                found.append(process)
        except psutil.Error:
            continue  # ended meanwhile
    return found


def kill_marked(variable: str, mark: str) -> None:
    """Clean-up: SIGKILL the marked processes still running (one may end meanwhile)."""
    for process in marked(variable, mark):
        with contextlib.suppress(psutil.NoSuchProcess):
            process.kill()


def left_after(variable: str, mark: str, timeout: float) -> list[psutil.Process]:
    """The marked processes still running after up to `timeout` seconds of waiting for none.
    Zombies count as gone: killed orphans may wait a while for init to reap them."""
    deadline = time.monotonic() + timeout
    while (alive := marked(variable, mark)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive
