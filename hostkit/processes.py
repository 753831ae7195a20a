"""Processes we start: spawning them, waiting until they serve, stopping them by PID.

A process is tracked by its PID plus its start time (`Process`, or a service's
record), so a recycled PID is never mistaken for ours and a process is stopped
by that PID, never by name. Servers run in their own session with their output
appended to a log, whose tail (secrets redacted) goes into error messages.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass

from hostkit.errors import ServiceError, redact
from hostkit.process_start import running_since, start_time


@dataclass
class Process:
    """One started server or client process."""

    role: str
    pid: int
    create_time: float
    log: str
    port: int = 0
    node: str = ""

    def running(self) -> bool:
        return is_running(self.pid, self.create_time)

    def stop(self, timeout: float = 10.0) -> bool:
        """SIGTERM, then SIGKILL after `timeout`; False if it had already ended.

        Waits for the process to exit rather than to vanish: one started by an
        earlier command is not our child and stays a zombie until init reaps it."""
        was_running = self.running()
        stop_together([self], timeout)
        return was_running


def stop_together(processes: list[Process], timeout: float = 10.0) -> None:
    """`Process.stop` of several processes at once: SIGTERM to all, a wait of up to `timeout`
    for all, then `stop_process` for each (which reaps our children and ends what is left), so
    that servers slow to shut down (JVMs) do not wait for each other."""
    running = [process for process in processes if process.running()]
    for process in running:
        os.kill(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while any(process.running() for process in running) and time.monotonic() < deadline:
        time.sleep(0.02)
    for process in processes:
        stop_process(process.pid, process.create_time)


def started(role: str, process: subprocess.Popen[bytes], log: str, port: int = 0, node: str = "") -> Process:
    """The record of a process just spawned."""
    return Process(role, process.pid, create_time(process.pid), log, port, node)


def spawn(argv: list[str], log_path: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """Start a server in its own session with output appended to `log_path`."""
    with open(log_path, "ab") as log:
        try:
            return subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        except OSError as error:
            raise ServiceError(f"cannot start {argv[0]}: {error.strerror}") from error


def wait_until(
    ready: Callable[[], bool],
    process: subprocess.Popen[bytes],
    what: str,
    log_path: str,
    timeout: float = 60.0,
    secrets: tuple[str, ...] = (),
) -> None:
    """Poll `ready` with backoff until it holds; fail early if the process dies."""
    deadline = time.monotonic() + timeout
    delay = 0.05
    while not ready():
        if process.poll() is not None:
            raise ServiceError(f"{what} exited with status {process.returncode}:\n{log_tail(log_path, secrets)}")
        if time.monotonic() > deadline:
            stop_process(process.pid, create_time(process.pid))
            raise ServiceError(f"{what} was not ready after {timeout:.0f} s:\n{log_tail(log_path, secrets)}")
        time.sleep(delay)
        delay = min(delay * 1.5, 0.5)


def log_tail(log_path: str, secrets: tuple[str, ...] = (), lines: int = 15) -> str:
    """The last lines of a server log, secrets redacted, for error messages."""
    try:
        with open(log_path, encoding="utf-8", errors="replace") as log:
            tail = log.readlines()[-lines:]
    except OSError:
        return "(no log)"
    return redact("".join("    " + line for line in tail).rstrip(), secrets)


def is_running(pid: int, create_time: float) -> bool:
    """True when `pid` is alive and is the very process started at `create_time`."""
    started = running_since(pid)
    return started is not None and abs(started - create_time) < 0.01


def stop_process(pid: int, create_time: float, timeout: float = 10.0) -> bool:
    """Stop the process we started (SIGTERM, then SIGKILL); False if it was already gone."""
    if not is_running(pid, create_time):
        _reap(pid)
        return False
    import psutil  # here: 8 ms to import, which every command that checks on a process would pay

    process = psutil.Process(pid)
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout)
    except psutil.TimeoutExpired:
        process.kill()
        process.wait(timeout)
    _reap(pid)
    return True


def create_time(pid: int) -> float:
    """When process `pid` started (0.0 if it is gone): with the PID, what identifies it."""
    return start_time(pid) or 0.0


def _reap(pid: int) -> None:
    """Collect the exit status if `pid` is our child, so no zombie is left."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
