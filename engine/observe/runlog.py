"""The run directory and its JSON-lines event log.

Every run gets `runs/NNN/` (or the directory given with `--run-dir`) holding
`events.jsonl`: one record per line — the run's start and end, and for every
task its submission (with its input files), its dispatch to a worker (one
record per batch sent, written at once, so after a crash the log says what was
running where),
and its start and end with task id, kind, label, command line, worker, node,
times (epoch seconds) and exit status; the start record carries the worker's
own clock reading and is written with the end. Reports, resume and the
benchmarks read this file.

The `end` record of an app task also says where its worker spent the attempt
and what it moved (Python leaves and builtins carry none of these keys):
- `stage_in_s`, `run_s`, `stage_out_s`: seconds (6 decimals) fetching inputs,
  running the app (launch to exit, outputs renamed into place) and pushing
  outputs; staging is 0.0 for shared stores and local runs. With stream staging
  `stage_in_s` is only the time until the app could start: the downloads
  happen inside `run_s`.
- `bytes_in`, `bytes_out`: bytes of the declared input and output files —
  those downloaded and uploaded for a staging store (streamed: those fed to the
  app), the files' sizes for shared stores and local runs.
- `digests`: each output the app wrote, by the run's name for it (the logical path
  in a store, else the path as the script gives it), with its content digest
  (`blake3:<hex>`, taken by the worker as it published it).

A task reused by `--resume` has a `reused` record with the digests its earlier run
recorded; a file the engine wrote itself (`write()`, a mapped copy, an input loaded
into a store) has a `published` record with its name and digest. The `run_start`
record says where the files are: `storage` (null for local paths) and `config`,
the working directory `cwd`, and `temporaries`, the prefix of the unmapped files the
run removes at its end. `swiftcloud verify` checks a run's files from these.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any, BinaryIO, Optional, Sequence

from engine.errors import UsageError
from engine.observe.jsonlines import json_line
from engine.task.contract import Completion, Task

# Records reach the file at most this long after they are written, so a crash (even
# kill -9) loses at most that much of the log; flushing every record would cost a
# system call per record on runs of 100,000s of tasks.
FLUSH_INTERVAL_S = 0.05


def next_run_dir(base: str = "runs") -> str:
    """Create and return `base/NNN`, the next free number (safe if runs race)."""
    os.makedirs(base, exist_ok=True)
    numbers = [int(n) for n in os.listdir(base) if n.isdigit()]
    n = max(numbers, default=0) + 1
    while True:
        path = os.path.join(base, f"{n:03d}")
        try:
            os.mkdir(path)
            return path
        except FileExistsError:
            n += 1


def latest_run_dir(base: str = "runs") -> Optional[str]:
    """The highest-numbered `base/NNN`, or None if there is none."""
    try:
        numbers = [int(n) for n in os.listdir(base) if n.isdigit()]
    except OSError:
        return None
    return os.path.join(base, f"{max(numbers):03d}") if numbers else None


class RunLog:
    """Appends events of one run to `DIR/events.jsonl`."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self.path = os.path.join(directory, "events.jsonl")
        try:
            os.makedirs(directory, exist_ok=True)
            self._file: Optional[BinaryIO] = open(self.path, "ab")
        except OSError as error:
            raise UsageError(f"cannot write the run log in '{directory}': {error.strerror}") from None
        self._tasks: dict[int, Task] = {}
        self._flushed = time.monotonic()

    def _write(self, record: dict[str, Any], *more: dict[str, Any]) -> None:
        if self._file is not None:
            self._file.write(json_line(record) if not more else b"".join(map(json_line, (record, *more))))
            now = time.monotonic()
            if now - self._flushed >= FLUSH_INTERVAL_S:
                self.flush(now)

    def flush(self, now: Optional[float] = None) -> None:
        """Hand buffered records to the operating system (they then survive a crash of this process)."""
        if self._file is not None:
            self._file.flush()
            self._flushed = time.monotonic() if now is None else now

    def run_started(self, script: str, args: list[str], workers: int, storage: Optional[str] = None,
                    config: Optional[str] = None, temporaries: str = "") -> None:
        self._write({"event": "run_start", "script": script, "args": args, "workers": workers,
                     "storage": storage, "config": config, "cwd": os.getcwd(), "temporaries": temporaries,
                     "time": time.time()})

    def task_submitted(self, task: Task) -> None:
        self._tasks[task.id] = task
        record = {"event": "submit", "task": task.id, "kind": task.kind, "label": task.label,
                  "time": time.time()}
        if task.inputs:
            record["inputs"] = list(task.inputs)
        self._write(record)

    def tasks_dispatched(self, tasks: Sequence[Task], worker: int, node: str) -> None:
        """A batch went to `worker` on `node`: its tasks are running or queued there
        (one record per batch, listing its task ids in order)."""
        self._write({"event": "dispatch", "tasks": [task.id for task in tasks], "worker": worker,
                     "node": node, "time": time.time()})
        self.flush()  # the engine may now block until a task ends: a crash meanwhile keeps these

    def task_reused(self, task: Task, digests: dict[str, str]) -> None:
        """A task an earlier run finished (`--resume`): not run again; its outputs' digests
        as that run recorded them."""
        record = {"event": "reused", "task": task.id, "kind": task.kind, "label": task.label,
                  "command": _command(task), "time": time.time()}
        if digests:
            record["digests"] = digests
        self._write(record)

    def file_published(self, name: str, digest: str) -> None:
        """The engine wrote file `name` itself (not a task), with this content digest."""
        self._write({"event": "published", "path": name, "digest": digest, "time": time.time()})

    def task_finished(self, c: Completion) -> None:
        task = self._tasks.pop(c.task_id, None)
        common = {"task": c.task_id, "kind": task.kind if task else "", "label": task.label if task else "",
                  "worker": c.worker, "node": c.node}
        start = {"event": "start", **common, "command": _command(task), "time": c.start}
        end = {"event": "end", **common, "time": c.end, "status": "ok" if c.ok else "failed",
               "attempts": c.attempts}
        if not c.ok:
            end["error"] = c.error.splitlines()[0] if c.error else ""
        end.update(c.extra)
        self._write(start, end)

    def run_finished(self, exit_status: int, elapsed: float) -> None:
        self._write({"event": "run_end", "exit_status": exit_status, "elapsed": elapsed,
                     "time": time.time()})
        self.close()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def _command(task: Optional[Task]) -> list[str] | str:
    if task is None:
        return ""
    if task.kind != "app":  # only apps have a command line (and a getattr that fails costs)
        return task.label
    argv = getattr(task.payload, "argv", None)
    if argv is not None:
        return list(argv)
    return task.label


def read_events(directory: str) -> list[dict[str, Any]]:
    """All events of a run directory, in order."""
    with open(os.path.join(directory, "events.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def events_so_far(directory: str) -> list[dict[str, Any]]:
    """The events a run that may still be going has written: none before its log exists,
    and not a last line still being written."""
    try:
        with open(os.path.join(directory, "events.jsonl"), encoding="utf-8") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return []
    events = []
    for line in lines:
        try:
            events.append(json.loads(line))
        except ValueError:
            break  # the line being written
    return events
