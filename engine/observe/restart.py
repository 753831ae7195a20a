"""The restart log: app tasks that finished, keyed by what they ran on, for `run --resume`.

Every run writes `runs/NNN/restart.jsonl`, one record per app task that
succeeded: its key (a hash of its command line, redirections and the
versions of its input files), the versions of its output files and their
content digests. Each record is handed to the operating
system as it is written, so it survives a crash of the engine, kill -9
included; the file is fsynced at least every `SYNC_INTERVAL_S` and when the
run ends, against a crash of the machine. A torn last line is ignored when
the log is read back.
"""

from __future__ import annotations

import json
import os
import time
from io import FileIO
from typing import Any, Optional

from engine.errors import UsageError
from engine.observe.jsonlines import json_line

RESTART_FILE = "restart.jsonl"
SYNC_INTERVAL_S = 0.5


def read_restart_log(directory: str) -> dict[str, dict[str, Any]]:
    """The records of a run directory by key (later records win); an error if it has none."""
    path = os.path.join(directory, RESTART_FILE)
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError as error:
        raise UsageError(f"cannot resume from '{directory}': no restart log there ({error.strerror})") from None
    records: dict[str, dict[str, Any]] = {}
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue  # the line a crash cut short
        if isinstance(record, dict) and isinstance(record.get("key"), str):
            records[record["key"]] = record
    return records


class RestartLog:
    """Appends the records of one run, each at once, synced to disk in batches."""

    def __init__(self, directory: str) -> None:
        # Unbuffered: a write system call per record (a microsecond beside an app's
        # milliseconds), so a finished task is never lost with the engine.
        self._file: Optional[FileIO] = open(os.path.join(directory, RESTART_FILE), "ab", buffering=0)
        self._synced = time.monotonic()

    def record(self, key: str, what: str, outputs: dict[str, Optional[list[int]]], digests: dict[str, str]) -> None:
        """Task `key` (`what` names it for people) succeeded, leaving these output versions
        with these digests."""
        if self._file is None:
            return
        record = {"key": key, "what": what, "outputs": outputs, "digests": digests}
        self._file.write(json_line(record))
        now = time.monotonic()
        if now - self._synced >= SYNC_INTERVAL_S:
            self.sync(now)

    def sync(self, now: Optional[float] = None) -> None:
        if self._file is not None:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._synced = time.monotonic() if now is None else now

    def close(self) -> None:
        if self._file is not None:
            self.sync()
            self._file.close()
            self._file = None
