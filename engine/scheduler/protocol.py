"""Wire messages between the engine and its workers, shared by every transport.

Engine -> worker:
- `("run", [(task_id, payload), ...])`: run these tasks in order.
- `("stop",)`: leave the loop once the batches received before it are done.

Worker -> engine:
- `("done", worker_id, [(task_id, ok, value_or_error, retriable, start, end), ...])`:
  outcomes of one or more tasks (sent as they finish; only results of short
  tasks finishing within a few milliseconds of each other travel together).
  An app task's result has a seventh element, its phase record (times and
  bytes for the run log); others do without, so they cost nothing more.

A transport also reports a dead worker as a `WorkerGone` notice. Messages are
plain tuples so that they stay small and picklable; `events.events_from` turns what
a transport received into state-machine events (the engine's side: a worker rank
does without the events' classes). `Transport` is the small interface the
`Scheduler` facade drives (local processes now, MPI later).
"""

from __future__ import annotations

from typing import Any, Iterable, Protocol, Union

from engine.task.contract import Task

RUN = "run"
STOP = "stop"
DONE = "done"

STOP_MESSAGE: tuple[str] = (STOP,)

# (task_id, ok, value if ok else error message, retriable, start, end[, phases])
Result = tuple[Any, ...]


class WorkerGone:
    """A transport's notice that a worker died or its connection broke (a class of its own, not
    a tuple: the messages it travels with are tuples)."""

    __slots__ = ("worker", "reason")

    def __init__(self, worker: int, reason: str) -> None:
        self.worker = worker
        self.reason = reason


Incoming = Union[tuple, WorkerGone]


def run_message(tasks: Iterable[Task]) -> tuple[str, list[tuple[int, Any, int]]]:
    """The message carrying a batch: ids, payloads and attempt numbers (the worker needs
    nothing else)."""
    return (RUN, [(task.id, task.payload, task.attempt) for task in tasks])


def done_message(worker_id: int, results: list[Result]) -> tuple[str, int, list[Result]]:
    """The message carrying finished tasks' outcomes back to the engine."""
    return (DONE, worker_id, results)


class Transport(Protocol):
    """How the `Scheduler` facade reaches its workers.

    Implementations take `(workers: int, runner: Runner, nodes: Sequence[str] | None)`
    as constructor arguments and run `worker.serve` at the other end.
    """

    def start(self) -> list[tuple[int, str]]:
        """Start the workers; return `(worker_id, node_name)` for each."""
        ...

    def send(self, worker: int, message: tuple) -> None:
        """Send one message; a dead worker is not an error here (`recv` reports it)."""
        ...

    def recv(self, timeout: float | None) -> list[Incoming]:
        """Wait up to `timeout` seconds (None: forever) for messages and `WorkerGone`
        notices; return all that are available (possibly none, on timeout)."""
        ...

    def close(self, kill: bool = False) -> None:
        """Stop the workers (politely, or `kill` them and their subprocesses); idempotent."""
        ...
