"""The scheduler state machine, fed events by hand; `validate()` runs after every step."""

from __future__ import annotations

import math
import random
from collections import Counter
from typing import Callable, Sequence

import pytest

from engine.scheduler.events import (
    Abort, Event, Instruction, Report, RetryDue, ScheduleRetry, SendBatch, Shutdown, StopWorker,
    TaskErred, TaskFinished, TaskSubmitted, WorkerJoined, WorkerLost,
)
from engine.scheduler.dispatch import Locator
from engine.scheduler.policy import Batching, Placement
from engine.scheduler.state import SchedulerState, TaskState
from engine.task.contract import Completion, Task

LONG = 2.0
TINY = 1e-5


class Driver:
    """Wraps the state: every `handle` is followed by `validate()`."""

    def __init__(self, locate: Callable[[str], Sequence[str]] | None = None,
                 **options: object) -> None:
        self.state = SchedulerState(placement=Placement(), rng=random.Random(7), **options)
        self.locator = Locator(locate)  # what the Scheduler's shell asks the store

    def handle(self, *events: Event) -> list[Instruction]:
        out = self.state.handle(*events)
        self.state.validate()
        return out

    def submit(self, *tasks: Task) -> list[Instruction]:
        return self.handle(*(TaskSubmitted(task, self.locator.locations(task)) for task in tasks))


def task(task_id: int, priority: int = 0, label: str = "f", inputs: tuple[str, ...] = (),
         retries: int = 0) -> Task:
    return Task(task_id, "app", payload=task_id, priority=priority, inputs=inputs, label=label,
                retries=retries)


def sends(out: list[Instruction]) -> list[SendBatch]:
    return [i for i in out if isinstance(i, SendBatch)]


def reports(out: list[Instruction]) -> list[Completion]:
    return [i.completion for i in out if isinstance(i, Report)]


def ids(batch: SendBatch) -> list[int]:
    return [t.id for t in batch.tasks]


def finished(batch: SendBatch, seconds: float) -> list[Event]:
    return [TaskFinished(t.id, batch.worker, f"v{t.id}", 100.0, 100.0 + seconds)
            for t in batch.tasks]


def run_to_end(driver: Driver, out: list[Instruction], seconds: float) -> dict[int, list[int]]:
    """Simulate workers running each batch in order, each task taking `seconds`, until no work
    is left; return the task ids each worker ran, in order."""
    queues: dict[int, list[int]] = {}
    clock: dict[int, float] = {}
    ran: dict[int, list[int]] = {}
    while True:
        for batch in sends(out):
            queues.setdefault(batch.worker, []).extend(ids(batch))
        busy = [w for w, q in queues.items() if q]
        if not busy:
            return ran
        worker = min(busy, key=lambda w: (clock.get(w, 0.0), w))
        task_id = queues[worker].pop(0)
        clock[worker] = clock.get(worker, 0.0) + seconds
        ran.setdefault(worker, []).append(task_id)
        out = driver.handle(TaskFinished(task_id, worker, None, 100.0, 100.0 + seconds))


# ------------------------------------------------------------- priorities


def test_higher_priority_first_and_fifo_within_a_priority() -> None:
    d = Driver()
    d.submit(task(0, 0), task(1, 5), task(2, 0), task(3, 5), task(4, 1))
    ran = run_to_end(d, d.handle(WorkerJoined(0, "n0")), LONG)
    assert ran == {0: [1, 3, 4, 0, 2]}


def test_priority_order_holds_inside_a_batch() -> None:
    d = Driver()
    d.submit(task(0, label="t"))
    [first] = sends(d.handle(WorkerJoined(0, "n0")))
    d.handle(*finished(first, TINY))  # learn that "t" is tiny; nothing else is ready
    out = d.submit(task(1, 0, "t"), task(2, 3, "t"), task(3, 0, "t"), task(4, 3, "t"))
    assert [ids(b) for b in sends(out)] == [[2, 4, 1, 3]]


# --------------------------------------------------------------- batching


def test_first_task_of_unknown_duration_goes_alone_then_batches_grow_with_prefetch() -> None:
    d = Driver()
    d.submit(*(task(i, label="tiny") for i in range(1000)))
    [first] = sends(d.handle(WorkerJoined(0, "n0")))
    assert ids(first) == [0]
    out = d.handle(*finished(first, TINY))
    # One batch to run, and a second one prefetched before the first is done.
    assert [len(b.tasks) for b in sends(out)] == [256, 256]
    assert [ids(b)[0] for b in sends(out)] == [1, 257]
    # Nothing more until a batch completes: at most two batches in flight.
    assert not sends(d.handle(*finished(sends(out)[0], TINY)[:100]))


def test_long_tasks_go_one_at_a_time_without_prefetch() -> None:
    d = Driver()
    d.submit(*(task(i, label="long") for i in range(20)))
    out = d.handle(WorkerJoined(0, "n0"))
    for _ in range(19):
        [batch] = sends(out)
        assert len(batch.tasks) == 1
        out = d.handle(*finished(batch, LONG))


def test_batch_work_is_bounded_by_estimates_of_each_kind() -> None:
    d = Driver()
    d.submit(task(0, label="tiny"), task(1, label="long"))
    [batch] = sends(d.handle(WorkerJoined(0, "n0")))
    [batch] = sends(d.handle(*finished(batch, TINY)))
    assert ids(batch) == [1]  # unknown duration: alone
    d.handle(*finished(batch, LONG))
    out = d.submit(task(2, label="tiny"), task(3, label="tiny"), task(4, label="long"),
                   task(5, label="tiny"))
    # The long task does not join the tiny ones; it is prefetched alone behind them.
    assert [ids(b) for b in sends(out)] == [[2, 3], [4]]


def test_batch_size_follows_the_duration_estimate() -> None:
    d = Driver(batching=Batching(target_s=0.0055, max_batch=512))
    d.submit(*(task(i, label="ms") for i in range(100)))
    [first] = sends(d.handle(WorkerJoined(0, "n0")))
    [batch, prefetched] = sends(d.handle(*finished(first, 0.001)))
    assert len(batch.tasks) == 5 and len(prefetched.tasks) == 5  # 5.5 ms of 1 ms tasks


def test_slack_is_the_queued_work_beyond_the_running_task_of_the_least_busy_worker() -> None:
    d = Driver(batching=Batching(target_s=0.0055, max_batch=512))
    d.submit(*(task(i, label="ms") for i in range(100)))
    assert d.state.slack() == 0.0  # no worker yet
    [first] = sends(d.handle(WorkerJoined(0, "n0")))
    assert d.state.slack() == 0.0  # its one task has no estimate yet
    [batch, prefetched] = sends(d.handle(*finished(first, 0.001)))
    # Ten 1 ms tasks queued; the one running may be about to end.
    assert d.state.slack() == pytest.approx(0.009)
    d.handle(*finished(batch, 0.001)[:4])
    assert d.state.slack() == pytest.approx(0.005)
    joined = sends(d.handle(WorkerJoined(1, "n1")))  # a batch and a prefetched one
    assert sum(len(b.tasks) for b in joined) == 10
    assert d.state.slack() == pytest.approx(0.005)  # worker 0 has less queued


def test_an_idle_worker_leaves_no_slack() -> None:
    d = Driver()
    d.submit(task(0, label="ms"), task(1, label="ms"))
    [first] = sends(d.handle(WorkerJoined(0, "n0")))
    [second] = sends(d.handle(*finished(first, 0.001)))
    assert d.state.slack() == 0.0  # one task of 1 ms: nothing queued behind it
    d.handle(*finished(second, 0.001))
    assert d.state.slack() == 0.0


def test_ten_long_tasks_on_two_workers_split_evenly() -> None:
    d = Driver()
    d.submit(*(task(i, label="long") for i in range(10)))
    ran = run_to_end(d, d.handle(WorkerJoined(0, "a"), WorkerJoined(1, "b")), LONG)
    assert sorted(len(r) for r in ran.values()) == [5, 5]


def test_no_batch_exceeds_a_fair_share_of_the_ready_queue() -> None:
    d = Driver()
    d.submit(task(0, label="tiny"))
    [first] = sends(d.handle(WorkerJoined(0, "a"), WorkerJoined(1, "b")))
    d.handle(*finished(first, TINY))
    out = d.submit(*(task(i, label="tiny") for i in range(1, 11)))
    batches = sends(out)
    ready = 10
    for batch in batches:
        assert len(batch.tasks) <= math.ceil(ready / 2)
        ready -= len(batch.tasks)
    assert {b.worker for b in batches} == {0, 1}
    assert ready == 0


# ---------------------------------------------------------------- retries


def test_retries_back_off_exponentially_then_succeed() -> None:
    d = Driver()
    d.handle(WorkerJoined(0, "n0"))
    out = d.submit(task(0, retries=2))
    delays = []
    for attempt in (1, 2):
        [batch] = sends(out)
        out = d.handle(TaskErred(0, batch.worker, f"failure {attempt}", True, 1.0, 2.0))
        [retry] = [i for i in out if isinstance(i, ScheduleRetry)]
        assert d.state.state_of(0) is TaskState.WAITING_RETRY and not sends(out)
        delays.append(retry.delay_s)
        out = d.handle(RetryDue(0))
    assert 0.05 <= delays[0] <= 0.15 and 0.1 <= delays[1] <= 0.3
    [batch] = sends(out)
    [done] = reports(d.handle(*finished(batch, 1.0)))
    assert done.ok and done.value == "v0" and done.attempts == 3 and done.node == "n0"
    assert d.state.state_of(0) is None


def test_final_failure_after_the_allowed_retries_reports_the_last_error() -> None:
    d = Driver()
    d.handle(WorkerJoined(0, "n0"))
    out = d.submit(task(0, retries=2))
    for attempt in (1, 2, 3):
        [batch] = sends(out)
        out = d.handle(TaskErred(0, 0, f"failure {attempt}", True, 1.0, 2.0))
        if attempt < 3:
            out = d.handle(RetryDue(0))
    [failed] = reports(out)
    assert not failed.ok and failed.error == "failure 3" and failed.attempts == 3
    assert not any(isinstance(i, ScheduleRetry) for i in out)


def test_a_non_retriable_failure_is_final_at_once() -> None:
    d = Driver()
    d.handle(WorkerJoined(0, "n0"))
    d.submit(task(0, retries=5))
    [failed] = reports(d.handle(TaskErred(0, 0, "bad value", False, 1.0, 2.0)))
    assert not failed.ok and failed.attempts == 1 and failed.error == "bad value"


def test_first_retry_returns_to_its_worker_the_second_avoids_it() -> None:
    d = Driver()
    d.handle(WorkerJoined(0, "n0"), WorkerJoined(1, "n1"))
    [batch] = sends(d.submit(task(0, retries=3)))
    assert batch.worker == 0
    d.handle(TaskErred(0, 0, "flaky", True, 1.0, 2.0))
    # Worker 1 has been idle longer and would be served first, but the retry
    # prefers the worker (and node) it failed on.
    [batch] = sends(d.handle(RetryDue(0)))
    assert batch.worker == 0
    d.handle(TaskErred(0, 0, "flaky", True, 1.0, 2.0))
    [busy] = sends(d.submit(task(1, label="long")))
    assert busy.worker == 1
    # Only worker 0 is idle now, yet the second retry waits for another worker.
    assert not sends(d.handle(RetryDue(0)))
    [batch] = sends(d.handle(*finished(busy, LONG)))
    assert batch.worker == 1 and ids(batch) == [0]


def test_with_one_worker_left_the_avoided_worker_still_gets_the_retry() -> None:
    d = Driver()
    d.handle(WorkerJoined(0, "n0"), WorkerJoined(1, "n1"))
    d.submit(task(0, retries=3))
    d.handle(TaskErred(0, 0, "flaky", True, 1.0, 2.0), RetryDue(0))
    d.handle(TaskErred(0, 0, "flaky", True, 1.0, 2.0), WorkerLost(1, "gone"))
    [batch] = sends(d.handle(RetryDue(0)))
    assert batch.worker == 0


# ------------------------------------------------------------ worker loss


def test_a_lost_workers_tasks_run_elsewhere_first() -> None:
    d = Driver()
    d.submit(*(task(i, label="long") for i in range(4)))
    out = d.handle(WorkerJoined(0, "a"), WorkerJoined(1, "b"))
    assert [(b.worker, ids(b)) for b in sends(out)] == [(0, [0]), (1, [1])]
    assert not d.handle(WorkerLost(0, "worker 0 was killed"))
    assert d.state.state_of(0) is TaskState.READY
    # News from the dead worker is stale and ignored.
    assert not d.handle(TaskFinished(0, 0, None, 1.0, 2.0))
    [batch] = sends(d.handle(TaskFinished(1, 1, None, 1.0, 2.0)))
    assert ids(batch) == [0]  # requeued at the front, before tasks 2 and 3
    ran = run_to_end(d, [batch], LONG)
    assert ran == {1: [0, 2, 3]}


def test_tasks_of_a_lost_batch_run_alone_afterwards() -> None:
    d = Driver()
    d.submit(task(0, label="tiny"))
    [first] = sends(d.handle(WorkerJoined(0, "a"), WorkerJoined(1, "b")))
    d.handle(*finished(first, TINY))
    batches = sends(d.submit(*(task(i, label="tiny") for i in range(1, 9))))
    lost = {i for b in batches if b.worker == 0 for i in ids(b)}
    assert len(lost) > 1
    out = d.handle(WorkerLost(0, "gone"))
    assert not reports(out)
    pending = [b for b in batches if b.worker == 1] + sends(out)
    done: list[int] = []
    while pending:
        batch = pending.pop(0)
        assert batch.worker == 1
        if lost & set(ids(batch)):
            assert len(batch.tasks) == 1  # suspects of the crash run alone
        done += ids(batch)
        pending += sends(d.handle(*finished(batch, TINY)))
    assert sorted(done) == list(range(1, 9))


def test_all_workers_lost_aborts() -> None:
    d = Driver()
    d.submit(task(0))
    d.handle(WorkerJoined(0, "a"), WorkerJoined(1, "b"))
    assert not any(isinstance(i, Abort) for i in d.handle(WorkerLost(1, "worker 1 exited")))
    out = d.handle(WorkerLost(0, "worker 0 was killed by SIGKILL"))
    assert Abort("all workers lost: worker 0 was killed by SIGKILL") in out


def test_a_task_that_keeps_killing_its_worker_fails() -> None:
    d = Driver(max_losses=3)
    d.handle(*(WorkerJoined(w, f"n{w}") for w in range(4)))
    out = d.submit(task(0, label="poison"))
    for worker in range(3):
        [batch] = sends(out)
        out = d.handle(WorkerLost(batch.worker, f"worker {batch.worker} crashed"))
    [failed] = reports(out)
    assert not failed.ok and failed.attempts == 3
    assert "died 3 times" in failed.error and "worker 2 crashed" in failed.error
    assert not any(isinstance(i, Abort) for i in out)


# -------------------------------------------------------------- placement


def test_placement_prefers_the_node_holding_most_inputs() -> None:
    where = {"/d/x": ["n1"], "/d/y": ["n1", "n2"], "/d/z": ["n0"]}
    calls: Counter[str] = Counter()

    def locate(path: str) -> list[str]:
        calls[path] += 1
        return where.get(path, [])

    d = Driver(locate)
    d.handle(WorkerJoined(0, "n0"), WorkerJoined(1, "n1"), WorkerJoined(2, "n2"))
    out = d.submit(task(0, inputs=("/d/x", "/d/y", "/d/z")), task(1, inputs=("/d/z",)),
                   task(2, inputs=("/d/y", "/d/x")))
    placed = {ids(b)[0]: b.worker for b in sends(out)}
    assert placed[0] == 1 and placed[1] == 0  # n1 holds 2 of 3 inputs; z lives on n0
    assert calls == Counter({"/d/x": 1, "/d/y": 1, "/d/z": 1})  # cached per path


def test_placement_costs_nothing_without_inputs() -> None:
    calls: list[str] = []
    d = Driver(lambda path: calls.append(path) or [])
    d.handle(WorkerJoined(0, "n0"))
    d.submit(*(task(i) for i in range(10)))
    assert calls == []


def test_an_idle_worker_takes_a_task_waiting_for_a_busy_node() -> None:
    d = Driver({"/d/x": ["n1"]}.get)
    d.handle(WorkerJoined(0, "n0"), WorkerJoined(1, "n1"))
    [busy] = sends(d.submit(task(0, label="long")))
    assert busy.worker == 0
    d.handle(*finished(busy, LONG))
    [busy] = sends(d.submit(task(1, label="long")))
    # Worker 1 (n1) is busy; worker 0 would otherwise idle, so it takes the task.
    [batch] = sends(d.submit(task(2, inputs=("/d/x",))))
    assert batch.worker == 0 and ids(batch) == [2]


def test_a_deferred_task_is_not_starved_by_other_work() -> None:
    patience = 4
    d = Driver({"/d/x": ["n1"]}.get)
    d.state._placement.patience = patience
    d.handle(WorkerJoined(0, "n0"), WorkerJoined(1, "n1"))
    [busy] = sends(d.submit(task(0, label="long")))
    d.handle(*finished(busy, LONG))  # learn that "long" is long
    [busy] = sends(d.submit(task(1, label="long")))
    assert busy.worker == 1  # and stays busy with it
    out = d.submit(task(2, label="affine", inputs=("/d/x",)),
                   *(task(i, label="long") for i in range(3, 20)))
    order = []
    while 2 not in order:
        [batch] = sends(out)
        assert batch.worker == 0
        order += ids(batch)
        out = d.handle(*finished(batch, LONG))
    # Passed over `patience` times while n1's worker was busy, then taken by n0's.
    assert order == [3, 4, 5, 6, 2]


def test_a_preferred_idle_worker_gets_the_task() -> None:
    d = Driver({"/d/x": ["n1"]}.get)
    d.handle(WorkerJoined(0, "n0"), WorkerJoined(1, "n1"))
    [batch] = sends(d.submit(task(0, inputs=("/d/x",))))
    assert batch.worker == 1


# -------------------------------------------------------------- lifecycle


def test_shutdown_stops_every_live_worker_and_dispatches_nothing() -> None:
    d = Driver()
    d.handle(WorkerJoined(0, "a"), WorkerJoined(1, "b"), WorkerJoined(2, "c"), WorkerLost(2, "x"))
    out = d.handle(Shutdown())
    assert out == [StopWorker(0), StopWorker(1)]
    assert not d.submit(task(0))


def test_a_task_id_submitted_twice_is_refused() -> None:
    d = Driver()
    d.submit(task(0))
    with pytest.raises(ValueError, match="submitted twice"):
        d.state.handle(TaskSubmitted(task(0)))


def test_validate_notices_a_corrupted_state() -> None:
    d = Driver()
    d.submit(task(0), task(1))
    d.state._ready.push(1, 0)  # the same task queued twice
    with pytest.raises(AssertionError, match="duplicates"):
        d.state.validate()


def test_every_task_state_documents_itself() -> None:
    assert all(state.__doc__ and state.__doc__ != TaskState.__doc__ for state in TaskState)
