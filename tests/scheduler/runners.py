"""The task runner of the scheduler tests: `RUNNER`, whose payload `(name, argument)` calls the
function of that name here with the argument.

It travels to workers like the engine's own runner (inherited by forked workers,
pickled to MPI ranks). Cross-attempt state (failure counters, crash markers)
lives in files, since attempts may run in different processes.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any, Callable

from engine.task.contract import LeafError


class Calls:
    """The runner the tests give workers; like the engine's, it kills what its tasks started
    when the worker is terminated (`terminate`), for those that registered it."""

    def __init__(self) -> None:
        self.cleanups: list[Callable[[], None]] = []

    def __call__(self, payload: tuple[str, Any]) -> Any:
        name, argument = payload
        if name == "app_then_hang":
            return app_then_hang(argument, self.cleanups)
        return globals()[name](argument)

    def terminate(self) -> None:
        for cleanup in list(self.cleanups):
            cleanup()


RUNNER = Calls()
call = RUNNER


def noop(payload: Any) -> Any:
    """Return the payload unchanged."""
    return payload


def sleep(payload: float) -> float:
    """Sleep `payload` seconds."""
    time.sleep(payload)
    return payload


def touch(payload: str) -> str:
    """Create the file `payload` (so the engine side can see the task has run)."""
    Path(payload).touch()
    return payload


def touch_when(payload: tuple[str, str]) -> str:
    """Wait until the file `go` exists (up to 60 s), then create the file `mark`."""
    go, mark = map(Path, payload)
    deadline = time.monotonic() + 60
    while not go.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    mark.touch()
    return str(mark)


def fail(payload: tuple[str, bool]) -> None:
    """Fail with the given message and retriable flag."""
    message, retriable = payload
    raise LeafError(message, retriable)


def broken(payload: Any) -> None:
    """A bug in the runner itself (not a LeafError)."""
    raise ValueError(f"bad payload {payload!r}")


def unpicklable(payload: Any) -> Any:
    """Return a value that cannot travel back to the engine."""
    return lambda: payload


def fail_then_succeed(payload: tuple[str, int]) -> int:
    """Fail (retriably) the first `n` times, counting attempts in a file; then return the count."""
    counter, failures = Path(payload[0]), payload[1]
    attempt = int(counter.read_text()) + 1 if counter.exists() else 1
    counter.write_text(str(attempt))
    if attempt <= failures:
        raise LeafError(f"attempt {attempt} failed", retriable=True)
    return attempt


def crash_once(payload: str) -> str:
    """SIGKILL the worker the first time (marker file absent); succeed afterwards."""
    marker = Path(payload)
    if not marker.exists():
        marker.write_text(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)
    return "survived"


def crash(payload: Any) -> None:
    """Die abruptly every time."""
    os._exit(3)


def note_child(directory: str, pid: int) -> None:
    """Write `pid` to `directory/<this worker's pid>`, whole or not at all: a test lists the
    directory while the task runs, and must never read a file made but not yet written."""
    final = Path(directory, str(os.getpid()))
    temporary = final.with_name(f".{final.name}.tmp")
    temporary.write_text(str(pid))
    temporary.replace(final)


def noted_children(directory: str | Path) -> dict[int, int]:
    """The notes `note_child` has published in `directory`: a worker's pid -> its child's."""
    return {int(note.name): int(note.read_text()) for note in Path(directory).iterdir() if note.name.isdigit()}


def stubborn_child(payload: str) -> None:
    """Start a child that ignores SIGTERM, without registering any cleanup; wait for it."""
    child = subprocess.Popen(["sh", "-c", "trap '' TERM; sleep 300 & wait"])
    note_child(payload, child.pid)
    child.wait()


def where(payload: Any) -> tuple[str, int]:
    """The node name the worker exports, and the worker's pid."""
    return os.environ["SWIFTCLOUD_NODE"], os.getpid()


def app_then_hang(payload: str, cleanups: list[Callable[[], None]]) -> None:
    """Start a long child process like an app runner would (registering its cleanup),
    write its pid to `payload/<worker pid>`, then wait for it."""
    child = subprocess.Popen(["sleep", "300"])
    cleanups.append(child.kill)
    note_child(payload, child.pid)
    try:
        child.wait()
    finally:
        cleanups.remove(child.kill)


def detached_child(payload: str) -> None:
    """Start a child in its own session (out of reach of the worker's group); wait for it."""
    child = subprocess.Popen(["sleep", "300"], start_new_session=True)
    note_child(payload, child.pid)
    child.wait()


def orphan_then_crash(payload: str) -> str:
    """The first time: start a long child, note its pid in `payload/child`, and die without
    cleaning up. Afterwards: succeed."""
    child_file = Path(payload, "child")
    if not child_file.exists():
        child = subprocess.Popen(["sleep", "300"])
        child_file.write_text(str(child.pid))
        os._exit(5)
    return "second try"
