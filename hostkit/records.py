"""Records of started servers: what every local server keeps in its state directory.

A service lives in `<state_dir>/<name>/`: its data, its log and `state.json`
(mode 600) recording the PID (with the process start time, so a recycled PID
is never mistaken for ours), the ports chosen at start, printable facts in
`info` and generated credentials in `secrets`. Servers are stopped by the PID
they recorded, never by name.

The user's own index (`$XDG_STATE_HOME/swiftcloud/state-dirs`, else
`~/.local/state/swiftcloud/state-dirs`; one absolute path per line, mode 600)
lists the state directories that `swiftcloud services start` used, so that
`status` and `stop` find a service wherever it was started.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from hostkit.errors import ServiceError
from hostkit.processes import Process, create_time, is_running

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


def replace_process(state_dir: str, record: ServiceRecord, old: Process, new: Process) -> ServiceRecord:
    """Save `record` with `new` in the place of `old` (a process started again): in its list of
    processes and, when `old` was its main process, as that; returns the record saved."""
    entries = record.info.get("processes", [])
    for index, entry in enumerate(entries):
        if entry["pid"] == old.pid and entry["create_time"] == old.create_time:
            entries[index] = asdict(new)
    if (record.pid, record.create_time) == (old.pid, old.create_time):
        record = ServiceRecord(record.name, new.pid, new.create_time, record.info, record.secrets)
    save_record(state_dir, record)
    return record


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


def state_index_path() -> str:
    """The user's index of state directories (see the module docstring)."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "swiftcloud", "state-dirs")


def remember_state_dir(state_dir: str) -> None:
    """Add `state_dir` to the user's index, dropping directories that no longer exist."""
    path = state_index_path()
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    with os.fdopen(descriptor, "r+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # two `services start` at once must both be kept
        listed = _listed(handle)
        new = os.path.abspath(state_dir)  # kept even before the service creates it
        kept = [directory for directory in dict.fromkeys(listed + [new])
                if directory == new or os.path.isdir(directory)]
        handle.seek(0)
        handle.truncate()
        handle.write("".join(f"{directory}\n" for directory in kept))


def known_state_dirs() -> list[str]:
    """The state directories in the user's index that still exist, in the order first used."""
    try:
        with open(state_index_path(), encoding="utf-8") as handle:
            listed = _listed(handle)
    except FileNotFoundError:
        return []
    return [directory for directory in listed if os.path.isdir(directory)]


def _listed(index: Iterable[str]) -> list[str]:
    """The distinct directories of the index's lines, in order."""
    return list(dict.fromkeys(line.strip() for line in index if line.strip()))
