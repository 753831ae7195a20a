"""What every local test server shares: state directory, free ports, processes, records.

A service lives in `<state_dir>/<name>/`: its data, its log and `state.json`
(mode 600) recording the PID (with the process start time, so a recycled PID
is never mistaken for ours), the ports chosen at start, printable facts in
`info` and generated credentials in `secrets`. Servers bind 127.0.0.1 on a
port picked free at start; they are stopped by the PID they recorded, never
by name.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import psutil

from storage_adapters.errors import ServiceError, redact

LOOPBACK = "127.0.0.1"
STATE_FILE = "state.json"
LOG_FILE = "server.log"


@dataclass
class ServiceRecord:
    """A started server: where it listens and how to reach and stop it."""

    name: str
    pid: int
    create_time: float
    info: dict[str, Any]
    secrets: dict[str, str] = field(default_factory=dict, repr=False)


def default_state_dir() -> str:
    """`.swiftcloud/services` under the current directory."""
    return os.path.abspath(os.path.join(".swiftcloud", "services"))


def service_dir(state_dir: str, name: str) -> str:
    """The directory of one service, created private to the user."""
    path = os.path.join(os.path.abspath(state_dir), name)
    os.makedirs(path, mode=0o700, exist_ok=True)
    return path


def free_port(host: str = LOOPBACK) -> int:
    """A TCP port nobody listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def port_open(port: int, host: str = LOOPBACK, timeout: float = 0.5) -> bool:
    """True when something accepts TCP connections on host:port."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


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
            stop_process(process.pid, _create_time(process.pid))
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


def record_process(name: str, process: subprocess.Popen[bytes], info: dict[str, Any], secrets: dict[str, str]) -> ServiceRecord:
    """A record for a freshly started process."""
    return ServiceRecord(name, process.pid, _create_time(process.pid), info, secrets)


def save_record(state_dir: str, record: ServiceRecord) -> None:
    """Write `state.json` (mode 600: it holds generated credentials)."""
    path = os.path.join(service_dir(state_dir, record.name), STATE_FILE)
    descriptor = os.open(path + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        json.dump(asdict(record), handle, indent=2)
    os.replace(path + ".tmp", path)


def load_record(state_dir: str, name: str) -> ServiceRecord | None:
    """The recorded state of service `name`, or None if it was never started here."""
    path = os.path.join(os.path.abspath(state_dir), name, STATE_FILE)
    try:
        with open(path) as handle:
            return ServiceRecord(**json.load(handle))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError) as error:
        raise ServiceError(f"unreadable service state {path}: {error}") from error


def forget_record(state_dir: str, name: str) -> None:
    """Remove a service's state file after it was stopped."""
    try:
        os.remove(os.path.join(os.path.abspath(state_dir), name, STATE_FILE))
    except FileNotFoundError:
        pass


def running_record(state_dir: str, name: str) -> ServiceRecord | None:
    """The record of service `name` if its process is still the one we started."""
    record = load_record(state_dir, name)
    return record if record is not None and is_running(record.pid, record.create_time) else None


def is_running(pid: int, create_time: float) -> bool:
    """True when `pid` is alive and is the very process started at `create_time`."""
    try:
        process = psutil.Process(pid)
        return abs(process.create_time() - create_time) < 0.01 and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def stop_process(pid: int, create_time: float, timeout: float = 10.0) -> bool:
    """Stop the process we started (SIGTERM, then SIGKILL); False if it was already gone."""
    if not is_running(pid, create_time):
        _reap(pid)
        return False
    process = psutil.Process(pid)
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout)
    except psutil.TimeoutExpired:
        process.kill()
        process.wait(timeout)
    _reap(pid)
    return True


def _create_time(pid: int) -> float:
    try:
        return psutil.Process(pid).create_time()
    except psutil.Error:
        return 0.0


def _reap(pid: int) -> None:
    """Collect the exit status if `pid` is our child, so no zombie is left."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
