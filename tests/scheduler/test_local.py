"""The `Scheduler` facade with real local worker processes."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Iterator

import psutil
import pytest

from engine.scheduler.dispatch import Scheduler, SchedulerAborted
from engine.task.contract import Completion, Task

from .runners import RUNNER, noted_children


def job(task_id: int, name: str, argument: Any, **fields: Any) -> Task:
    return Task(task_id, "python", payload=(name, argument), label=name, **fields)


def collect(scheduler: Scheduler, count: int, timeout: float = 60.0) -> dict[int, Completion]:
    """Poll until `count` completions arrived; fail on a duplicate or after `timeout`."""
    deadline = time.monotonic() + timeout
    done: dict[int, Completion] = {}
    while len(done) < count:
        assert time.monotonic() < deadline, f"only {len(done)} of {count} completions arrived"
        for completion in scheduler.poll(1.0):
            assert completion.task_id not in done, f"task {completion.task_id} reported twice"
            done[completion.task_id] = completion
    return done


def alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def wait_until(condition: Any, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def started_here(before: set[int]) -> list[psutil.Process]:
    """This process's descendants other than `before` (servers a fixture of another module
    started in this process, before this test)."""
    return [p for p in psutil.Process().children(recursive=True) if p.pid not in before]


@pytest.fixture(autouse=True)
def no_leftover_processes() -> Iterator[set[int]]:
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    yield before
    assert wait_until(lambda: not started_here(before), 5.0), started_here(before)


def test_workers_start_at_the_first_task_and_a_thousand_noops_complete(no_leftover_processes: set[int]) -> None:
    with Scheduler(2, runner=RUNNER) as scheduler:
        assert scheduler.workers == 2 and scheduler.poll(0.0) == []
        assert not started_here(no_leftover_processes)
        for i in range(1000):
            scheduler.submit(job(i, "noop", i))
        assert len([p for p in psutil.Process().children() if p.pid not in no_leftover_processes]) == 2
        done = collect(scheduler, 1000)
        assert scheduler.outstanding() == 0
    assert all(c.ok and c.value == i and c.attempts == 1 for i, c in done.items())
    assert {c.worker for c in done.values()} == {0, 1}


def test_failures_come_back_as_values() -> None:
    with Scheduler(2, runner=RUNNER) as scheduler:
        scheduler.submit(job(0, "fail", ("the app failed: exit 1", False), retries=3))
        scheduler.submit(job(1, "broken", "x"))
        scheduler.submit(job(2, "unpicklable", "y"))
        scheduler.submit(job(3, "noop", "fine"))
        done = collect(scheduler, 4)
    assert not done[0].ok and done[0].error == "the app failed: exit 1" and done[0].attempts == 1
    assert not done[1].ok
    assert done[1].error == "internal error in task: ValueError(\"bad payload 'x'\")"
    assert not done[2].ok and "its result cannot be sent back" in done[2].error
    assert done[3].ok and done[3].value == "fine"


def test_retries_until_success_or_final_failure(tmp_path: Path) -> None:
    with Scheduler(2, runner=RUNNER) as scheduler:
        scheduler.submit(job(0, "fail_then_succeed", (str(tmp_path / "a"), 2), retries=2))
        scheduler.submit(job(1, "fail_then_succeed", (str(tmp_path / "b"), 2), retries=1))
        started = time.monotonic()
        done = collect(scheduler, 2)
    assert done[0].ok and done[0].value == 3 and done[0].attempts == 3
    assert not done[1].ok and done[1].error == "attempt 2 failed" and done[1].attempts == 2
    assert time.monotonic() - started >= 0.05 + 0.1  # two backoffs of at least 0.05 s and 0.1 s


def test_a_worker_killed_mid_run_loses_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "crashed"
    with Scheduler(2, runner=RUNNER) as scheduler:
        for i in range(300):
            scheduler.submit(job(i, "crash_once" if i == 150 else "sleep",
                                 str(marker) if i == 150 else 0.001))
        done = collect(scheduler, 300)
    assert marker.exists() and all(c.ok for c in done.values())
    assert done[150].value == "survived" and done[150].attempts == 2
    assert len({c.worker for c in done.values() if c.task_id > 150}) == 1


def test_apps_left_behind_by_a_dead_worker_are_killed(tmp_path: Path) -> None:
    with Scheduler(2, runner=RUNNER) as scheduler:
        scheduler.submit(job(0, "orphan_then_crash", str(tmp_path)))
        done = collect(scheduler, 1)
        assert done[0].ok and done[0].value == "second try" and done[0].attempts == 2
        orphan = int((tmp_path / "child").read_text())
        assert wait_until(lambda: not alive(orphan), 5.0)  # killed (asynchronously) on loss


def test_losing_every_worker_aborts_the_run() -> None:
    with Scheduler(1, runner=RUNNER) as scheduler:
        scheduler.submit(job(0, "crash", None))
        with pytest.raises(SchedulerAborted, match="all workers lost: worker 0 on node .* exited "
                                                   "with code 3"):
            collect(scheduler, 1)
        with pytest.raises(SchedulerAborted):
            scheduler.poll(0.0)


def test_each_worker_sees_its_node_name() -> None:
    with Scheduler(2, runner=RUNNER, nodes=["alpha", "beta"]) as scheduler:
        for i in range(40):
            scheduler.submit(job(i, "where", None))
        done = collect(scheduler, 40)
    assert all(c.value[0] == c.node for c in done.values())
    assert {c.node for c in done.values()} == {"alpha", "beta"}
    assert len({c.value[1] for c in done.values()}) == 2


def test_poll_times_out_while_work_runs() -> None:
    with Scheduler(1, runner=RUNNER) as scheduler:
        scheduler.submit(job(0, "sleep", 0.5))
        started = time.monotonic()
        assert scheduler.poll(0.1) == []  # before the 0.5 s task could end
        assert time.monotonic() - started >= 0.09
        assert scheduler.outstanding() == 1
        assert collect(scheduler, 1)[0].ok


def test_kill_terminates_workers_and_the_apps_they_run(tmp_path: Path) -> None:
    scheduler = Scheduler(3, runner=RUNNER)
    scheduler.submit(job(0, "app_then_hang", str(tmp_path)))
    scheduler.submit(job(1, "stubborn_child", str(tmp_path)))
    scheduler.submit(job(2, "detached_child", str(tmp_path)))
    scheduler.poll(0.0)
    assert wait_until(lambda: len(noted_children(tmp_path)) == 3)
    notes = noted_children(tmp_path)
    apps = list(notes.values())
    assert wait_until(lambda: all(psutil.Process(pid).children() for pid in apps
                                  if "sh" in psutil.Process(pid).name()))
    apps += [c.pid for pid in apps for c in psutil.Process(pid).children()]
    workers = list(notes)
    scheduler.close(kill=True)
    scheduler.close(kill=True)  # idempotent
    assert len(apps) == 4 and not any(alive(pid) for pid in workers + apps)


def test_graceful_close_lets_workers_exit(no_leftover_processes: set[int]) -> None:
    scheduler = Scheduler(2, runner=RUNNER)
    scheduler.submit(job(0, "noop", 1))
    collect(scheduler, 1)
    workers = [p.pid for p in psutil.Process().children() if p.pid not in no_leftover_processes]
    scheduler.close()
    assert workers and not any(alive(pid) for pid in workers)
    with pytest.raises(RuntimeError):
        scheduler.submit(job(1, "noop", 1))


def test_a_scheduler_never_used_starts_nothing(no_leftover_processes: set[int]) -> None:
    scheduler = Scheduler(4, runner=RUNNER)
    assert scheduler.poll(0.0) == [] and scheduler.outstanding() == 0
    scheduler.close()
    assert not started_here(no_leftover_processes)


def test_worker_node_names_must_match_the_worker_count() -> None:
    with pytest.raises(ValueError, match="2 node names given for 3 workers"):
        Scheduler(3, runner=RUNNER, nodes=["a", "b"])


def test_an_unknown_transport_is_a_usage_error() -> None:
    from engine.errors import UsageError

    with pytest.raises(UsageError, match="unknown transport 'carrier-pigeon'"):
        Scheduler(1, runner=RUNNER, transport="carrier-pigeon")
