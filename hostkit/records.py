"""Records of started servers: what every local server keeps in its state directory.

A service lives in `<state_dir>/<name>/`: its data, its log and `state.json`
(mode 600) recording the PID (with the process start time, so a recycled PID
is never mistaken for ours), the ports chosen at start, printable facts in
`info` and generated credentials in `secrets`. Servers are stopped by the PID
they recorded, never by name.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import asdict, dataclass, field
from typing import Any

from hostkit.errors import ServiceError
from hostkit.processes import create_time, is_running

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


def record_process(name: str, process: subprocess.Popen[bytes], info: dict[str, Any], secrets: dict[str, str]) -> ServiceRecord:
    """A record for a freshly started process."""
    return ServiceRecord(name, process.pid, create_time(process.pid), info, secrets)


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
