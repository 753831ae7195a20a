"""The scheduler as a pure state machine (after dask.distributed's worker state).

`SchedulerState.handle(*events)` is the only way its state changes; it returns
the instructions its driver must carry out (see `events.py`). No I/O, no
clock, no processes: time comes from the events, randomness from an injected
`random.Random`, file locations from the events (`TaskSubmitted.locations`).

Every live task is in exactly one place, named by its state: READY in the
ready queue, ASSIGNED in one worker's in-flight set, WAITING_RETRY in the retry
set; DONE and FAILED tasks are reported, counted and forgotten. Every move goes
through `_move`, checked against the one `TRANSITIONS` table, and `validate()`
re-derives all of this from scratch. State is keyed by task and worker ids and
the hot path touches only the task and workers concerned (hungry-worker sets,
per-node idle counts, never a scan of all tasks), so it could later be sharded
by id over several server ranks.
"""

from __future__ import annotations

import heapq
import math
import random
from collections import Counter
from collections.abc import Mapping
from enum import Enum
from types import MappingProxyType
from typing import Any, Callable

from engine.scheduler.events import (
    Abort, Event, Instruction, Report, RetryDue, ScheduleRetry, SendBatch, Shutdown, StopWorker,
    TaskErred, TaskFinished, TaskSubmitted, WorkerJoined, WorkerLost,
)
from engine.scheduler.policy import (
    Affinity, Backoff, Batching, DurationEstimates, Placement, ReadyQueue, Verdict,
)
from engine.task.contract import Completion, Task

# How many ready tasks one batch decision may pass over (leaving them for
# better-placed workers) beyond the batch size itself.
_SCAN_SLACK = 32
# A task waits this long for a busy worker on the node holding its data before an idle
# worker elsewhere takes it (when the busy worker's tasks have estimates to tell).
LOCALITY_WAIT_S = 0.5


class TaskState(Enum):
    """Where a task is in its life; each member's docstring says where it is kept."""

    def __new__(cls, value: str, doc: str) -> TaskState:
        member = object.__new__(cls)
        member._value_ = value
        member.__doc__ = doc
        return member

    # Members are singletons: identity hashing is exact, and much cheaper on
    # the hot path (transition checks, counts) than Enum's name hashing.
    __hash__ = object.__hash__

    READY = "ready", "In the ready queue, waiting for a worker with room."
    ASSIGNED = "assigned", "In a batch sent to a worker (running or queued there): in-flight."
    WAITING_RETRY = "waiting-retry", "Failed, retriable; waiting for its backoff timer (RetryDue)."
    DONE = "done", "Finished successfully and reported; forgotten except in the counts."
    FAILED = "failed", "Failed for good and reported; forgotten except in the counts."


# The members by plain names: an attribute of an Enum class costs eight times a global's to read.
READY, ASSIGNED, WAITING_RETRY, DONE, FAILED = (TaskState.READY, TaskState.ASSIGNED, TaskState.WAITING_RETRY,
                                                TaskState.DONE, TaskState.FAILED)
TAKE, DEFER = Verdict.TAKE, Verdict.DEFER
TRANSITIONS: Mapping[tuple[TaskState | None, TaskState], str] = MappingProxyType({
    (None, READY): "submitted",
    (READY, ASSIGNED): "sent to a worker in a batch",
    (ASSIGNED, DONE): "finished",
    (ASSIGNED, WAITING_RETRY): "failed, a retry is due after a backoff",
    (ASSIGNED, FAILED): "failed for good (or lost with its worker too often)",
    (ASSIGNED, READY): "its worker was lost: requeued at the front of its priority",
    (WAITING_RETRY, READY): "retry due: requeued at the front of its priority",
})
# The same table by target: the states each may be entered from (`_move` checks every move).
_ORIGINS: Mapping[TaskState, frozenset[TaskState | None]] = MappingProxyType({
    target: frozenset(origin for origin, to in TRANSITIONS if to is target) for target in TaskState})


# The two records are plain slotted classes: rank 0 imports no `dataclasses` (its classes took
# 5-10 ms of every run's start), and they are changed in place at every step, which a slotted
# class does faster than a msgspec Struct.
class _TaskRecord:
    __slots__ = ("task", "key", "base_affinity", "affinity", "state", "worker", "batch", "estimate", "attempts",
                 "failures", "losses", "deferrals", "deferred_in", "suspect")

    def __init__(self, task: Task, key: tuple[str, str], base_affinity: Affinity | None,
                 affinity: Affinity | None) -> None:
        self.task = task
        self.key = key  # (kind, label): what duration estimates are kept by
        self.base_affinity = base_affinity  # from the task's input files
        self.affinity = affinity  # what placement uses now (retries change it)
        self.state: TaskState | None = None
        self.worker = -1  # holding it (ASSIGNED) or that ran it last
        self.batch = -1
        self.estimate: float | None = None  # counted in the worker's work_s while ASSIGNED
        self.attempts = 0  # times sent to a worker
        self.failures = 0
        self.losses = 0  # times its worker died while it was alone there
        self.deferrals = 0  # dispatch rounds that passed it over while its preferred workers were busy
        self.deferred_in = -1  # the last such round (one round counts once, however many workers pass)
        self.suspect = False  # was on a worker that died: runs alone from now on


class _WorkerRecord:
    __slots__ = ("id", "node", "alive", "in_flight", "batches", "work_s", "longest_s", "unknown", "version")

    def __init__(self, id: int, node: str) -> None:
        self.id = id
        self.node = node
        self.alive = True
        self.in_flight: set[int] = set()
        self.batches: dict[int, int] = {}  # batch id -> tasks still in flight
        self.work_s = 0.0  # summed estimates of in-flight tasks that have one
        self.longest_s = 0.0  # no in-flight task's estimate exceeds this
        self.unknown = 0  # in-flight tasks without an estimate
        self.version = 0  # bumped at every refresh: older slack entries are stale


class SchedulerState:
    """Ready queue, workers, batching, retries and placement, driven only by `handle`."""

    def __init__(
        self,
        placement: Placement | None = None,
        batching: Batching | None = None,
        backoff: Backoff | None = None,
        rng: random.Random | None = None,
        max_losses: int = 3,
    ) -> None:
        self._placement = placement or Placement()
        self._batching = batching or Batching()
        self._backoff = backoff or Backoff()
        self._rng = rng or random.Random()
        self._max_losses = max_losses
        self._estimates = DurationEstimates()
        self._tasks: dict[int, _TaskRecord] = {}
        self._ready = ReadyQueue()
        self._waiting: set[int] = set()
        self._workers: dict[int, _WorkerRecord] = {}
        self._round = 0  # dispatch rounds so far
        self._alive = 0
        self._node_workers: Counter[str] = Counter()  # alive workers per node
        # Workers that can take a batch now, in the order they became so.
        self._idle: dict[int, None] = {}
        self._prefetchable: dict[int, None] = {}
        self._idle_on_node: Counter[str] = Counter()
        # (slack, worker id, version) of busy workers; entries of an older version are stale.
        self._slacks: list[tuple[float, int, int]] = []
        self._counts: Counter[TaskState] = Counter()  # live states now; DONE/FAILED in total
        self._submitted = 0
        self._next_batch = 0
        self._closing = False
        # Workers whose tasks left them in this `handle`, in the order of their last one: each
        # is refreshed once, before dispatching, rather than once per task of a batch.
        self._ended_on: dict[int, None] = {}
        self._handlers: dict[type, Callable[[Any, list[Instruction]], None]] = {
            TaskSubmitted: self._on_submitted,
            WorkerJoined: self._on_joined,
            TaskFinished: self._on_finished,
            TaskErred: self._on_erred,
            WorkerLost: self._on_lost,
            RetryDue: self._on_retry_due,
            Shutdown: self._on_shutdown,
        }

    # ----------------------------------------------------------------- API

    def handle(self, *events: Event) -> list[Instruction]:
        """Apply `events` in order, then dispatch; return what the driver must do."""
        out: list[Instruction] = []
        for event in events:
            self._handlers[type(event)](event, out)
        for worker_id in self._ended_on:
            self._refresh(self._workers[worker_id])
        self._ended_on.clear()
        self._dispatch(out)
        return out

    def slack(self) -> float:
        """Seconds for which every live worker surely has work queued: the least, over
        workers, of their estimated in-flight work beyond the longest task (which
        may be about to end). 0 when a worker is idle or holds a task of unknown
        length. Until then no worker needs the driver, which may take in results
        less often. Read from a lazy heap, without a scan of every worker."""
        if self._idle or self._closing:
            return 0.0
        heap = self._slacks
        while heap:
            slack, worker_id, version = heap[0]
            if self._workers[worker_id].version == version:
                return slack
            heapq.heappop(heap)
        return 0.0

    def state_of(self, task_id: int) -> TaskState | None:
        """The state of a live task, or None once it is reported (or was never submitted)."""
        record = self._tasks.get(task_id)
        return record.state if record else None

    # -------------------------------------------------------------- events

    def _on_submitted(self, event: TaskSubmitted, out: list[Instruction]) -> None:
        task = event.task
        if task.id in self._tasks:
            raise ValueError(f"task {task.id} submitted twice")
        affinity = self._placement.affinity(event.locations, self._node_workers)
        record = _TaskRecord(task, (task.kind, task.label), affinity, affinity)
        self._tasks[task.id] = record
        self._submitted += 1
        self._move(record, READY)

    def _on_joined(self, event: WorkerJoined, out: list[Instruction]) -> None:
        known = self._workers.get(event.worker)
        if known is not None and known.alive:
            raise ValueError(f"worker {event.worker} joined twice")
        worker = self._workers[event.worker] = _WorkerRecord(event.worker, event.node)
        self._alive += 1
        self._node_workers[event.node] += 1
        self._refresh(worker)

    def _on_finished(self, event: TaskFinished, out: list[Instruction]) -> None:
        record = self._held(event.task_id, event.worker)
        if record is None:
            return
        self._estimates.observe(record.key, event.end - event.start)
        self._move(record, DONE)
        out.append(Report(self._completion(record, True, event.value, "", event.start, event.end,
                                           event.phases)))

    def _on_erred(self, event: TaskErred, out: list[Instruction]) -> None:
        record = self._held(event.task_id, event.worker)
        if record is None:
            return
        self._estimates.observe(record.key, event.end - event.start)
        record.failures += 1
        if event.retriable and record.failures <= record.task.retries:
            worker = self._workers[event.worker]
            record.affinity = self._placement.retry_affinity(
                record.base_affinity, record.failures, worker.id, worker.node)
            record.deferrals = 0
            self._move(record, WAITING_RETRY)
            delay = self._backoff.delay(record.failures, self._rng)
            out.append(ScheduleRetry(record.task.id, delay))
        else:
            self._move(record, FAILED)
            failure = self._completion(record, False, None, event.error, event.start, event.end,
                                       event.phases)
            out.append(Report(failure))

    def _on_lost(self, event: WorkerLost, out: list[Instruction]) -> None:
        worker = self._workers.get(event.worker)
        if worker is None or not worker.alive:
            return
        worker.alive = False
        self._alive -= 1
        _decrement(self._node_workers, worker.node)
        # A task alone on a dying worker is the likely cause; batch-mates are not
        # blamed, but every requeued task runs alone from now on to find out.
        alone = len(worker.in_flight) == 1
        for task_id in sorted(worker.in_flight, reverse=True):  # front-pushed: ends in id order
            record = self._tasks[task_id]
            record.suspect = True
            record.losses += alone
            if record.losses >= self._max_losses:
                self._move(record, FAILED)
                name = record.task.label or f"task {task_id}"
                error = (f"{name}: its worker died {record.losses} times while running it "
                         f"(last: {event.reason})")
                out.append(Report(self._completion(record, False, None, error, 0.0, 0.0)))
            else:
                self._move(record, READY, front=True)
        self._refresh(worker)
        if self._alive == 0 and not self._closing:
            out.append(Abort(f"all workers lost: {event.reason}"))

    def _on_retry_due(self, event: RetryDue, out: list[Instruction]) -> None:
        record = self._tasks.get(event.task_id)
        if record is not None and record.state is WAITING_RETRY:
            self._move(record, READY, front=True)

    def _on_shutdown(self, event: Shutdown, out: list[Instruction]) -> None:
        self._closing = True
        for worker in self._workers.values():
            if worker.alive:
                self._refresh(worker)
                out.append(StopWorker(worker.id))

    # ----------------------------------------------------------- dispatch

    def _dispatch(self, out: list[Instruction]) -> None:
        """Give batches to idle workers first, then top up workers that may prefetch."""
        if self._closing:
            return
        self._round += 1
        for pool in (self._idle, self._prefetchable):
            for worker_id in list(pool):
                if not self._ready:
                    return
                if worker_id in pool:
                    self._give_batch(self._workers[worker_id], out)

    def _give_batch(self, worker: _WorkerRecord, out: list[Instruction]) -> None:
        """Pick tasks for one worker in queue order: those placement lets it take, up to
        its fair share, the batch cap and the batch's estimated-work budget."""
        idle = not worker.in_flight
        fair_share = math.ceil(len(self._ready) / self._alive)
        limit = min(self._batching.max_batch, fair_share)
        target = self._batching.target_s
        others_alive = self._alive > 1
        taken: list[_TaskRecord] = []
        passed: list[tuple[int, int]] = []  # popped but not taken, in queue order
        waiting: list[_TaskRecord] = []  # deferred while their preferred workers are busy
        work = 0.0
        for priority, task_id in self._ready.pop_in_order():
            record = self._tasks[task_id]
            verdict = TAKE if record.affinity is None else self._placement.verdict(
                record.affinity, record.deferrals, worker.id, worker.node, others_alive)
            if verdict is TAKE:
                estimate = self._estimate(record)
                if taken:
                    fits = estimate is not None and work + estimate <= target
                else:
                    fits = idle or not record.suspect  # a suspect must be alone on its worker
                if not fits:
                    passed.append((priority, task_id))
                    break
                taken.append(record)
                if estimate is None or len(taken) >= limit:
                    break
                work += estimate
            else:
                passed.append((priority, task_id))
                if verdict is DEFER and not self._preferred_idle(record.affinity):
                    waiting.append(record)
            if len(taken) + len(passed) >= limit + _SCAN_SLACK:
                break
        forced = self._worth_moving(waiting) if not taken and idle else None
        if forced is not None:
            # Nothing else for this worker: rather than idle, take a task waiting for
            # busy workers elsewhere, when that saves more than a short wait.
            waiting.remove(forced)
            taken.append(forced)
            passed.remove((forced.task.priority, forced.task.id))
        for record in waiting:
            if record.deferred_in != self._round:
                record.deferrals += 1
                record.deferred_in = self._round
        self._ready.restore(passed)
        if not taken:
            return
        batch = self._next_batch
        self._next_batch += 1
        for record in taken:
            self._move(record, ASSIGNED, worker=worker, batch=batch)
        self._refresh(worker)
        out.append(SendBatch(worker.id, tuple(record.task for record in taken), worker.node))

    def _worth_moving(self, waiting: list[_TaskRecord]) -> _TaskRecord | None:
        """The first task of `waiting` (deferred for busy workers) that an idle worker
        elsewhere should take: one behind another in line for the same workers, or one whose
        workers are all busy for longer than LOCALITY_WAIT_S and than the task's own estimated
        time (or for how long is unknown).
        The first in line for workers about to be free stays: it starts there soon, where its
        data is (delay scheduling, as in Hadoop's and Spark's locality wait)."""
        seen: set[tuple[frozenset[str], int | None]] = set()
        for record in waiting:
            affinity = record.affinity
            assert affinity is not None  # only tasks with a preference wait
            key = (affinity.nodes, affinity.worker)
            # Waiting as long as the task itself runs at most doubles its time; moving it
            # costs its inputs' transfer, which for data-heavy tasks is most of that time.
            patience = max(LOCALITY_WAIT_S, self._estimate(record) or 0.0)
            if key in seen or self._busy_for(affinity) > patience:
                return record
            seen.add(key)
        return None

    def _busy_for(self, affinity: Affinity) -> float:
        """How long until the first worker `affinity` prefers is free, by the estimates of
        what it runs (infinite when one of its tasks has none)."""
        soonest = math.inf
        for worker in self._workers.values():
            if worker.alive and (worker.id == affinity.worker or worker.node in affinity.nodes):
                soonest = min(soonest, math.inf if worker.unknown else worker.work_s)
        return soonest

    def _preferred_idle(self, affinity: Affinity | None) -> bool:
        """Is a worker this task prefers idle now (so it will be served in this round)?"""
        if affinity is None:
            return False
        if affinity.worker is not None and affinity.worker in self._idle:
            return True
        return any(self._idle_on_node.get(node) for node in affinity.nodes)

    def _estimate(self, record: _TaskRecord) -> float | None:
        return None if record.suspect else self._estimates.get(record.key)

    # --------------------------------------------------------- bookkeeping

    def _move(self, record: _TaskRecord, target: TaskState, *, front: bool = False,
              worker: _WorkerRecord | None = None, batch: int = -1) -> None:
        """The one place a task changes state: leave the old place, enter the new one.

        Leaving READY needs nothing here: the dispatcher has already popped the
        task from the ready queue.
        """
        origin = record.state
        if origin not in _ORIGINS[target]:
            raise AssertionError(f"task {record.task.id}: no transition {origin} -> {target}")
        task_id = record.task.id
        if origin is ASSIGNED:
            self._unassign(record)
        elif origin is WAITING_RETRY:
            self._waiting.discard(task_id)
        if origin is not None:
            self._counts[origin] -= 1
        record.state = target
        self._counts[target] += 1
        if target is READY:
            self._ready.push(task_id, record.task.priority, front)
        elif target is ASSIGNED:
            assert worker is not None
            self._assign(record, worker, batch)
        elif target is WAITING_RETRY:
            self._waiting.add(task_id)
        else:
            del self._tasks[task_id]

    def _assign(self, record: _TaskRecord, worker: _WorkerRecord, batch: int) -> None:
        """Put a task in a worker's in-flight set; the caller refreshes the worker once a batch."""
        record.worker = worker.id
        record.batch = batch
        record.estimate = self._estimate(record)
        record.attempts += 1
        record.task.attempt = record.attempts
        worker.in_flight.add(record.task.id)
        worker.batches[batch] = worker.batches.get(batch, 0) + 1
        if record.estimate is None:
            worker.unknown += 1
        else:
            worker.work_s += record.estimate
            worker.longest_s = max(worker.longest_s, record.estimate)

    def _unassign(self, record: _TaskRecord) -> None:
        worker = self._workers[record.worker]
        worker.in_flight.discard(record.task.id)
        left = worker.batches[record.batch] - 1
        if left:
            worker.batches[record.batch] = left
        else:
            del worker.batches[record.batch]
        if record.estimate is None:
            worker.unknown -= 1
        else:
            worker.work_s -= record.estimate
        if not worker.in_flight:
            worker.work_s = 0.0  # no float drift carried into the next batches
            worker.longest_s = 0.0
        self._ended_on.pop(worker.id, None)
        self._ended_on[worker.id] = None

    def _hunger(self, worker: _WorkerRecord) -> tuple[bool, bool]:
        """(idle, may prefetch) for a worker, from its in-flight work alone."""
        if not worker.alive or self._closing:
            return False, False
        if not worker.in_flight:
            return True, False
        prefetch = (len(worker.batches) == 1 and worker.unknown == 0
                    and worker.work_s <= self._batching.prefetch_s)
        return False, prefetch

    def _refresh(self, worker: _WorkerRecord) -> None:
        """Bring the idle/prefetchable sets, per-node idle counts and the slack heap up to
        date for one worker."""
        worker.version += 1
        if worker.alive and worker.in_flight:
            heapq.heappush(self._slacks, (_queued_beyond_longest(worker), worker.id, worker.version))
            if len(self._slacks) > 4 * len(self._workers) + 64:  # drop stale entries
                self._slacks = [entry for entry in self._slacks
                                if self._workers[entry[1]].version == entry[2]]
                heapq.heapify(self._slacks)
        idle, prefetch = self._hunger(worker)
        if idle != (worker.id in self._idle):
            if idle:
                self._idle[worker.id] = None
                self._idle_on_node[worker.node] += 1
            else:
                del self._idle[worker.id]
                _decrement(self._idle_on_node, worker.node)
        if prefetch:
            self._prefetchable.setdefault(worker.id, None)
        else:
            self._prefetchable.pop(worker.id, None)

    def _held(self, task_id: int, worker_id: int) -> _TaskRecord | None:
        """The task if `worker_id` holds it; None for stale news (e.g. from a lost worker)."""
        record = self._tasks.get(task_id)
        if record is None or record.state is not ASSIGNED or record.worker != worker_id:
            return None
        return record

    def _completion(self, record: _TaskRecord, ok: bool, value: object, error: str,
                    start: float, end: float, phases: dict[str, Any] | None = None) -> Completion:
        """The outcome of a task's last attempt; an app's phase record becomes its `extra`."""
        node = self._workers[record.worker].node
        # Positional: one per task, and keywords cost a third more to pass.
        return Completion(record.task.id, ok, value, error, record.worker, node, start, end, record.attempts,
                          phases if phases is not None else {})

    # ---------------------------------------------------------- invariants

    def validate(self) -> None:
        """Re-derive every invariant from scratch; raise AssertionError listing what is broken."""
        problems: list[str] = []
        queued = list(self._ready)
        if len(queued) != len(set(queued)) or len(queued) != len(self._ready):
            problems.append(f"ready queue holds duplicates or miscounts: {queued}")
        held: dict[int, int] = {}
        for worker in self._workers.values():
            problems += self._worker_problems(worker)
            held.update((task_id, worker.id) for task_id in worker.in_flight)
        places = {READY: set(queued), ASSIGNED: set(held), WAITING_RETRY: self._waiting}
        for state, ids in places.items():
            if self._counts[state] != len(ids):
                problems.append(f"count of {state.name} is {self._counts[state]}, found {len(ids)}")
            for task_id in ids:
                record = self._tasks.get(task_id)
                if record is None or record.state is not state:
                    problems.append(f"task {task_id} is kept as {state.name} but is "
                                    f"{record.state.name if record else 'unknown'}")
        for task_id, record in self._tasks.items():
            if record.state not in places or task_id not in places[record.state]:
                problems.append(f"task {task_id} ({record.state}) is in no place or the wrong one")
            elif record.state is ASSIGNED and held[task_id] != record.worker:
                problems.append(f"task {task_id} is held by {held[task_id]}, not {record.worker}")
        if sum(self._counts.values()) != self._submitted:
            problems.append(f"counts {dict(self._counts)} do not add up to {self._submitted}")
        alive = [worker for worker in self._workers.values() if worker.alive]
        if self._alive != len(alive) or self._node_workers != Counter(w.node for w in alive):
            problems.append("alive worker counts disagree with the workers")
        if self._closing:
            scanned = 0.0
        else:
            scanned = min((_queued_beyond_longest(w) if w.in_flight else 0.0 for w in alive),
                          default=0.0)
        if not math.isclose(self.slack(), scanned, abs_tol=1e-9):
            problems.append(f"slack {self.slack()} disagrees with the workers' {scanned}")
        idle_nodes = Counter(self._workers[worker_id].node for worker_id in self._idle)
        if self._idle_on_node != idle_nodes:
            problems.append(f"idle-per-node {dict(self._idle_on_node)} != {dict(idle_nodes)}")
        if problems:
            raise AssertionError("scheduler state is inconsistent:\n  " + "\n  ".join(problems))

    def _worker_problems(self, worker: _WorkerRecord) -> list[str]:
        problems: list[str] = []
        name = f"worker {worker.id}"
        if not worker.alive and worker.in_flight:
            problems.append(f"{name} is lost but holds {sorted(worker.in_flight)}")
        records = [self._tasks[i] for i in worker.in_flight if i in self._tasks]
        batches = Counter(record.batch for record in records)
        if batches != Counter(worker.batches) or len(records) != len(worker.in_flight):
            problems.append(f"{name} batches {worker.batches} != tasks' batches {dict(batches)}")
        unknown = sum(record.estimate is None for record in records)
        work = sum(record.estimate or 0.0 for record in records)
        if unknown != worker.unknown or not math.isclose(work, worker.work_s, abs_tol=1e-9):
            problems.append(f"{name} estimates disagree with its tasks'")
        idle, prefetch = self._hunger(worker)
        if idle != (worker.id in self._idle) or prefetch != (worker.id in self._prefetchable):
            problems.append(f"{name} idle/prefetch sets out of date")
        return problems


def _queued_beyond_longest(worker: _WorkerRecord) -> float:
    """A busy worker's slack: its estimated in-flight work beyond the longest task
    (0 while it holds a task of unknown length)."""
    return 0.0 if worker.unknown else max(0.0, worker.work_s - worker.longest_s)


def _decrement(counter: Counter[str], key: str) -> None:
    """Decrease a count, dropping the key at zero (membership means 'at least one')."""
    counter[key] -= 1
    if not counter[key]:
        del counter[key]
