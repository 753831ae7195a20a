"""The `Scheduler` facade the runtime uses: submit tasks, poll completions, close.

It owns a `SchedulerState` (the pure state machine) and a transport, and
carries out the state's instructions: batches and stop messages go to the
transport, reports are handed back by `poll`, retry timers are kept in a heap
here (the state has no clock), and an abort becomes a `SchedulerAborted`
run-time error. Workers start at the first submitted task. Polling blocks in
the transport's `recv` with a timeout, never spinning; while every worker has
work queued, it first lets results gather a while. While the runtime keeps
submitting without polling (expanding a large loop, say), `submit`
dispatches what it has every `PUMP_S` and takes in finished work, so that the
workers start at once instead of when the runtime next polls.
"""

from __future__ import annotations

import heapq
import random
import time
from typing import Any, Callable, Sequence

from engine.errors import SwiftRuntimeError, UsageError
from engine.scheduler.events import (
    Abort, Event, Instruction, Report, RetryDue, ScheduleRetry, SendBatch, Shutdown, StopWorker,
    TaskSubmitted, WorkerJoined, events_from,
)
from engine.scheduler.policy import Placement
from engine.scheduler.protocol import STOP_MESSAGE, Transport, run_message
from engine.scheduler.state import SchedulerState
from engine.scheduler.worker import Runner
from engine.task.contract import Completion, Task

TRANSPORTS = ("local", "mpi")
PUMP_S = 0.002
# While every worker has work queued (`SchedulerState.slack`), results are
# taken in after at most this share of the slack, and never later than
# SETTLE_CAP_S: a few at a time rather than at every arrival, so the engine
# takes less CPU from the workers' cores. The rest of the slack absorbs
# tasks that end sooner than estimated.
SETTLE_SHARE = 0.5
SETTLE_CAP_S = 0.01
class Locator:
    """Asks the store where a task's input files are (for placement), once per path per run.

    Done here, outside the state machine, which gets the answers as event data."""

    def __init__(self, locate: Callable[[str], Sequence[str]] | None) -> None:
        self._locate = locate
        self._where: dict[str, tuple[str, ...]] = {}

    def locations(self, task: Task) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """Each input of `task` that some node is known to hold, with those nodes."""
        if self._locate is None or not task.inputs:
            return ()
        found = [(path, self._nodes_of(path)) for path in dict.fromkeys(task.inputs)]
        return tuple((path, nodes) for path, nodes in found if nodes)

    def _nodes_of(self, path: str) -> tuple[str, ...]:
        nodes = self._where.get(path)
        if nodes is None:
            try:
                nodes = tuple(self._locate(path)) if self._locate else ()
            except Exception:
                # A placement hint must never fail the run: an unlocatable file
                # simply gives no preference.
                nodes = ()
            self._where[path] = nodes
        return nodes


class SchedulerAborted(SwiftRuntimeError):
    """The run cannot continue (every worker is gone)."""


class Scheduler:
    """Runs tasks on workers; the runtime's only door to the scheduler."""

    def __init__(
        self,
        workers: int,
        *,
        runner: Runner,
        transport: str = "local",
        world: Any = None,
        nodes: Sequence[str] | None = None,
        locate: Callable[[str], Sequence[str]] | None = None,
        rng: random.Random | None = None,
        on_dispatch: Callable[[Sequence[Task], int, str], None] | None = None,
    ) -> None:
        self._transport: Transport = _transport(transport, world, workers, runner, nodes)
        self._workers = workers
        self._state = SchedulerState(placement=Placement(), rng=rng)
        self._locator = Locator(locate)
        self._started = False
        self._closed = False
        self._buffered: list[Event] = []
        self._completions: list[Completion] = []
        self._timers: list[tuple[float, int]] = []  # (monotonic due time, task id)
        self._submitted = 0
        self._reported = 0
        self._abort: str | None = None
        self._next_pump = 0.0  # monotonic time of the next dispatch from `submit`
        self._on_dispatch = on_dispatch  # told of every batch sent: (tasks, worker, node)

    @property
    def workers(self) -> int:
        """How many workers this scheduler runs."""
        return self._workers

    def submit(self, task: Task) -> None:
        """Queue a task; cheap, it is dispatched at the next `poll` or within `PUMP_S`.
        Starts the workers once."""
        if self._closed:
            raise RuntimeError("submit() on a closed scheduler")
        if not self._started:
            self._started = True
            joined = self._transport.start()
            self._buffered += [WorkerJoined(worker, node) for worker, node in joined]
        self._buffered.append(TaskSubmitted(task, self._locator.locations(task)))
        self._submitted += 1
        if time.monotonic() >= self._next_pump:
            self._pump()
            self._next_pump = time.monotonic() + PUMP_S

    def outstanding(self) -> int:
        """Tasks submitted and not yet reported by `poll`."""
        return self._submitted - self._reported

    def poll(self, timeout: float | None) -> list[Completion]:
        """Wait up to `timeout` seconds (None: no limit) for at least one completion.

        Returns at once with an empty list when nothing is outstanding. Raises
        `SchedulerAborted` when the run cannot go on.
        """
        if self._abort is not None and not self._completions:
            raise SchedulerAborted(self._abort)
        deadline = None if timeout is None else time.monotonic() + timeout
        events, self._buffered = self._buffered, []
        expired = False
        while True:
            events += self._due_retries()
            if events:
                self._execute(self._state.handle(*events))
                events = []
            if self._completions or self._abort is not None or not self.outstanding() or expired:
                break
            wait = self._wait_time(deadline)
            settle = min(SETTLE_CAP_S, SETTLE_SHARE * self._state.slack())
            if settle > 0 and wait != 0:
                time.sleep(settle if wait is None else min(settle, wait))
                wait = self._wait_time(deadline)
            for item in self._transport.recv(wait):
                events += events_from(item)
            expired = deadline is not None and time.monotonic() >= deadline
        completions, self._completions = self._completions, []
        self._reported += len(completions)
        if not completions and self._abort is not None:
            raise SchedulerAborted(self._abort)
        return completions

    def _pump(self) -> None:
        """Dispatch what is buffered and take in what has arrived, without waiting;
        completions are kept for the next `poll`."""
        events, self._buffered = self._buffered, []
        events += self._due_retries()
        for item in self._transport.recv(0.0):
            events += events_from(item)
        self._execute(self._state.handle(*events))

    def close(self, kill: bool = False) -> None:
        """Stop the workers (politely, or `kill` them and their apps); idempotent."""
        if self._closed:
            return
        self._closed = True
        if not self._started:
            return
        if not kill:
            self._execute(self._state.handle(Shutdown()))
        self._transport.close(kill=kill)

    def __enter__(self) -> Scheduler:
        return self

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        self.close(kill=error is not None)

    def _execute(self, instructions: list[Instruction]) -> None:
        for instruction in instructions:
            kind = type(instruction)
            if kind is SendBatch:
                self._transport.send(instruction.worker, run_message(instruction.tasks))
                if self._on_dispatch is not None:
                    self._on_dispatch(instruction.tasks, instruction.worker, instruction.node)
            elif kind is Report:
                self._completions.append(instruction.completion)
            elif kind is ScheduleRetry:
                due = time.monotonic() + instruction.delay_s
                heapq.heappush(self._timers, (due, instruction.task_id))
            elif kind is StopWorker:
                self._transport.send(instruction.worker, STOP_MESSAGE)
            elif kind is Abort:
                self._abort = instruction.reason

    def _due_retries(self) -> list[Event]:
        now = time.monotonic()
        due: list[Event] = []
        while self._timers and self._timers[0][0] <= now:
            due.append(RetryDue(heapq.heappop(self._timers)[1]))
        return due

    def _wait_time(self, deadline: float | None) -> float | None:
        """How long recv may block: until the deadline or the next retry, whichever is first."""
        now = time.monotonic()
        bounds = [deadline - now] if deadline is not None else []
        if self._timers:
            bounds.append(self._timers[0][0] - now)
        return max(0.0, min(bounds)) if bounds else None


def _transport(name: str, world: Any, workers: int, runner: Runner, nodes: Sequence[str] | None) -> Transport:
    """The transport named `name` (the MPI one drives the ranks of `world`, this process's MPI
    job), imported only when chosen: the MPI one needs mpi4py."""
    if name not in TRANSPORTS:
        raise UsageError(f"unknown transport {name!r}; choose one of {', '.join(TRANSPORTS)}")
    if name == "local":
        from engine.scheduler.local import LocalTransport

        return LocalTransport(workers, runner, nodes)
    if world is None:
        raise UsageError("the MPI transport needs an MPI run: start with 'swiftcloud run -n N' "
                         "(or under mpiexec with 'swiftcloud run --mpi')")
    try:
        from engine.scheduler.mpi import MPITransport
    except ImportError as exc:
        raise UsageError(f"the {name!r} transport is not available: {exc}") from exc
    return MPITransport(world, workers, runner, nodes)
