"""`swiftcloud verify RUN_DIR`: read back every file a run recorded a digest for, and say which changed.

The run log names the store (`run_start`: `storage`, `config`, `cwd`) and, for each
file the run wrote, the digest its writer took (`end` and `reused` records of app
tasks, `published` records of the engine's own files; the last one of a name wins).
Each file is read again from the store, a few at a time, and digested as it streams
in; it is `unchanged`, `changed` (both digests shown), or `missing`. Unmapped files
under the run's temporary prefix that are gone were removed by the run itself, and
are counted apart, not as missing.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import IO, Any, Callable, Optional

from engine.errors import UsageError
from hostkit.digests import Digester

READERS = 4  # files read at once: a store a region away answers each in a round trip
_BLOCK = 1024 * 1024

UNCHANGED, CHANGED, MISSING, REMOVED, UNREADABLE = "unchanged", "changed", "missing", "removed", "unreadable"


@dataclass(frozen=True)
class Finding:
    """What reading one recorded file again found."""

    name: str
    status: str
    recorded: str
    found: str = ""
    detail: str = ""

    def as_dict(self) -> dict[str, str]:
        return {key: value for key, value in vars(self).items() if value}


@dataclass(frozen=True)
class RecordedRun:
    """Where a run's files are, and the digest recorded for each."""

    storage: Optional[str]
    config: Optional[str]
    cwd: str
    temporaries: str
    digests: dict[str, str]


def recorded_run(run_dir: str) -> RecordedRun:
    """The store and the recorded digests of the run in `run_dir` (UsageError if it has no log)."""
    path = os.path.join(run_dir, "events.jsonl")
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError as error:
        raise UsageError(f"cannot verify '{run_dir}': no run log there ({error.strerror})") from None
    start: dict[str, Any] = {}
    digests: dict[str, str] = {}
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue  # the line a crash cut short
        kind = event.get("event")
        if kind == "run_start":
            start = event
        elif kind == "published":
            digests[event["path"]] = event["digest"]
        elif kind in ("end", "reused") and event.get("status", "ok") == "ok":
            digests.update(event.get("digests", {}))
    if not start:
        raise UsageError(f"cannot verify '{run_dir}': its run log has no run_start record")
    return RecordedRun(start.get("storage"), start.get("config"), start.get("cwd") or os.getcwd(),
                       start.get("temporaries") or "", digests)


def verify(run: RecordedRun) -> list[Finding]:
    """Read every recorded file again; one finding per file, in name order."""
    opener, close = _opener(run)
    try:
        with ThreadPoolExecutor(READERS) as pool:
            return list(pool.map(lambda name: _check(run, name, opener), sorted(run.digests)))
    finally:
        close()


def _check(run: RecordedRun, name: str, opener: Callable[[str], IO[bytes]]) -> Finding:
    recorded = run.digests[name]
    try:
        with opener(name) as handle:
            digester = Digester()
            while chunk := handle.read(_BLOCK):
                digester.update(chunk)
    except FileNotFoundError:
        temporary = bool(run.temporaries) and name.startswith(run.temporaries)
        return Finding(name, REMOVED if temporary else MISSING, recorded)
    except Exception as error:  # noqa: BLE001 - a file that cannot be read back is a finding, not a crash
        return Finding(name, UNREADABLE, recorded, detail=str(error) or type(error).__name__)
    found = digester.digest()
    return Finding(name, UNCHANGED if found == recorded else CHANGED, recorded, found)


def _opener(run: RecordedRun) -> tuple[Callable[[str], IO[bytes]], Callable[[], None]]:
    """How to open a recorded file for reading, and what to call when done."""
    if run.storage is None:
        return (lambda name: open(os.path.join(run.cwd, name), "rb")), (lambda: None)
    # Deferred: the storage layer is needed only for a run that used a store.
    from storage_adapters import StorageError, open_storage

    config = run.config
    if config is None and os.path.isfile(os.path.join(run.cwd, "swiftcloud.toml")):
        config = os.path.join(run.cwd, "swiftcloud.toml")  # what the run found in its directory
    adapter = open_storage(run.storage, config)

    def open_file(name: str) -> IO[bytes]:
        try:
            return adapter.open(name, "rb")  # type: ignore[return-value]
        except StorageError as error:
            raise OSError(str(error)) from None

    return open_file, adapter.close
