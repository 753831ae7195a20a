"""The vocabulary of the scheduler state machine: events in, instructions out.

`SchedulerState.handle(*events)` consumes the events below and returns
instructions for whoever drives it (the `Scheduler` facade, or a test).
Events say what happened (a task was submitted, a worker joined, a task
finished or failed, a worker died, a retry timer fired, shutdown began);
instructions say what to do next (send a batch, report a final outcome,
arm a retry timer, stop a worker, abort the run). All are small msgspec Structs, so that
they compare by value in tests. The engine builds three a task: a Struct is built in half a
slotted dataclass's time (0.18 against 0.39 us for six fields), and its class made in a
thirtieth of one's, so that rank 0 imports no `dataclasses` (these classes took 5-10 ms of
every run's start). Nothing changes one once built. `events_from` turns a transport's
messages into events (the engine's side of the wire: a worker rank imports none of this module).
"""

from __future__ import annotations

from typing import Any, Union

import msgspec

from engine.scheduler.protocol import DONE, Incoming, WorkerGone
from engine.task.contract import Completion, Task

# --------------------------------------------------------------------- events


class TaskSubmitted(msgspec.Struct):
    """The runtime hands over a task whose inputs are all closed; `locations` names, for each
    input file the store could place, the nodes holding it (asked by the scheduler's shell, so
    that the state machine does no I/O)."""

    task: Task
    locations: tuple[tuple[str, tuple[str, ...]], ...] = ()


class WorkerJoined(msgspec.Struct):
    """Worker `worker` (an id unique within the run) on node `node` can take work."""

    worker: int
    node: str


class TaskFinished(msgspec.Struct):
    """A worker ran a task successfully; `start`/`end` are epoch seconds of that run;
    `phases` is an app's phase record (see `AppPhases`), None for other tasks."""

    task_id: int
    worker: int
    value: Any
    start: float
    end: float
    phases: dict[str, Any] | None = None


class TaskErred(msgspec.Struct):
    """A worker ran a task and it failed; `retriable` says whether another try may help;
    `phases` as for `TaskFinished`."""

    task_id: int
    worker: int
    error: str
    retriable: bool
    start: float
    end: float
    phases: dict[str, Any] | None = None


class WorkerLost(msgspec.Struct):
    """A worker died or its connection broke; what it held must run elsewhere."""

    worker: int
    reason: str


class RetryDue(msgspec.Struct):
    """The backoff timer armed by a `ScheduleRetry` for this task has expired."""

    task_id: int


class Shutdown(msgspec.Struct):
    """The run is ending: stop dispatching and tell every worker to stop."""


Event = Union[TaskSubmitted, WorkerJoined, TaskFinished, TaskErred, WorkerLost, RetryDue, Shutdown]

# --------------------------------------------------------------- instructions


class SendBatch(msgspec.Struct):
    """Send these tasks, in this order, to `worker` (on `node`) in one message."""

    worker: int
    tasks: tuple[Task, ...]
    node: str = ""


class Report(msgspec.Struct):
    """The final outcome of a task, for the runtime."""

    completion: Completion


class ScheduleRetry(msgspec.Struct):
    """Feed `RetryDue(task_id)` back after `delay_s` seconds."""

    task_id: int
    delay_s: float


class StopWorker(msgspec.Struct):
    """Tell `worker` to leave its loop once it has finished what it holds."""

    worker: int


class Abort(msgspec.Struct):
    """The run cannot go on (e.g. every worker is gone); `reason` is user-facing."""

    reason: str


Instruction = Union[SendBatch, Report, ScheduleRetry, StopWorker, Abort]


def events_from(item: Incoming) -> list[Event]:
    """Turn one received message or notice into state-machine events."""
    if isinstance(item, WorkerGone):
        return [WorkerLost(item.worker, item.reason)]
    if not (isinstance(item, tuple) and len(item) == 3 and item[0] == DONE):
        raise RuntimeError(f"unexpected message from a worker: {item!r:.200}")
    _, worker, results = item
    return [
        TaskFinished(r[0], worker, r[2], r[4], r[5], r[6] if len(r) > 6 else None) if r[1]
        else TaskErred(r[0], worker, r[2], r[3], r[4], r[5], r[6] if len(r) > 6 else None)
        for r in results
    ]
