"""An MPI job for the transport tests: `mpiexec -n 3 python -m tests.mpi.scheduler_job DIR CASE...`.

Rank 0 runs each named case as its own `Scheduler` session (so the cases also
show that sessions are fenced from one another) and prints one JSON line per
case with what it saw; the worker ranks serve tasks from `tests.scheduler.runners`.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any, Callable

from engine.scheduler import launch
from engine.scheduler.dispatch import Scheduler, SchedulerAborted
from engine.scheduler.mpi_world import TAG
from engine.task.contract import Completion, Task
from hostkit.process_start import is_zombie
from tests.scheduler.runners import RUNNER, noted_children


def job(task_id: int, name: str, argument: Any, **fields: Any) -> Task:
    return Task(task_id, "python", payload=(name, argument), label=name, **fields)


def collect(scheduler: Scheduler, count: int, timeout: float = 60.0) -> dict[int, Completion]:
    deadline = time.monotonic() + timeout
    done: dict[int, Completion] = {}
    while len(done) < count and time.monotonic() < deadline:
        for completion in scheduler.poll(1.0):
            done[completion.task_id] = completion
    return done


def many_noops(workdir: Path, world: Any) -> dict[str, Any]:
    with Scheduler(2, transport="mpi", world=world, runner=RUNNER) as scheduler:
        for i in range(2000):
            scheduler.submit(job(i, "noop", i))
        done = collect(scheduler, 2000)
    return {"count": len(done), "right": sum(c.ok and c.value == i for i, c in done.items()),
            "workers": sorted({c.worker for c in done.values()})}


def failures(workdir: Path, world: Any) -> dict[str, Any]:
    with Scheduler(2, transport="mpi", world=world, runner=RUNNER) as scheduler:
        scheduler.submit(job(0, "fail", ("the app failed: exit 1", False), retries=3))
        scheduler.submit(job(1, "broken", "x"))
        scheduler.submit(job(2, "unpicklable", "y"))
        scheduler.submit(job(3, "noop", "fine"))
        done = collect(scheduler, 4)
    return {str(i): [c.ok, c.value if c.ok else c.error, c.attempts] for i, c in done.items()}


def retries(workdir: Path, world: Any) -> dict[str, Any]:
    with Scheduler(2, transport="mpi", world=world, runner=RUNNER) as scheduler:
        scheduler.submit(job(0, "fail_then_succeed", (str(workdir / "a"), 2), retries=2))
        scheduler.submit(job(1, "fail_then_succeed", (str(workdir / "b"), 2), retries=1))
        done = collect(scheduler, 2)
    return {str(i): [c.ok, c.value if c.ok else c.error, c.attempts] for i, c in done.items()}


def nodes(workdir: Path, world: Any) -> dict[str, Any]:
    with Scheduler(2, transport="mpi", world=world, runner=RUNNER, nodes=["alpha", "beta"]) as scheduler:
        for i in range(40):
            scheduler.submit(job(i, "where", None))
        done = collect(scheduler, 40)
    return {"matching": sum(c.value[0] == c.node for c in done.values()),
            "nodes": sorted({c.node for c in done.values()}),
            "pids": len({c.value[1] for c in done.values()})}


# Around the cluster's receive buffers (1 KiB, cluster/launch.py; 16 KiB by default) and far beyond.
SIZES = (10, 1000, 1025, 4097, 16_383, 16_385, 70_000, 1 << 20, 4 << 20)


def sizes(workdir: Path, world: Any) -> dict[str, Any]:
    """Tasks whose argument, and so result (a no-op returns it), is bytes of each size in SIZES,
    each of its own content: how many came back intact."""
    def content(size: int) -> bytes:
        return (size.to_bytes(4, "big") * (size // 4 + 1))[:size]
    with Scheduler(2, transport="mpi", world=world, runner=RUNNER) as scheduler:
        for i, size in enumerate(SIZES):
            scheduler.submit(job(i, "noop", content(size)))
        done = collect(scheduler, len(SIZES))
    return {"intact": sorted(size for i, size in enumerate(SIZES)
                             if i in done and done[i].ok and done[i].value == content(size))}


def drain(workdir: Path, world: Any) -> dict[str, Any]:
    """Results that arrived while the engine looked away all come in at its next look
    (MPICH takes in one message per progress step: one probe is not enough)."""
    marks = [workdir / f"drain-{i}" for i in range(2)]
    go = workdir / "drain-go"
    with Scheduler(2, transport="mpi", world=world, runner=RUNNER) as scheduler:
        for i, mark in enumerate(marks):
            scheduler.submit(job(i, "touch_when", (str(go), str(mark))))
        # Dispatch both, one to each worker, each result its own message; the tasks wait for
        # `go`, so that no result can come in with this look already.
        assert scheduler.poll(0) == []
        go.touch()
        deadline = time.monotonic() + 30
        while not all(mark.exists() for mark in marks) and time.monotonic() < deadline:
            time.sleep(0.01)
        # Each result leaves its worker right after its file is made: wait until MPI has both
        # (a probe per worker rank; it takes nothing in, so the poll below still must).
        while not all(world.comm.iprobe(source=rank, tag=TAG) for rank in world.workers):
            assert time.monotonic() < deadline, "a worker's result never reached rank 0"
            time.sleep(0.01)
        first = scheduler.poll(0)
        rest = collect(scheduler, 2 - len(first))
    return {"first_look": len(first), "total": len(first) + len(rest)}


def kill(workdir: Path, world: Any) -> dict[str, Any]:
    """Both workers run a long app; a kill-close cancels them, and the next session works."""
    apps = workdir / "apps"
    apps.mkdir()
    scheduler = Scheduler(2, transport="mpi", world=world, runner=RUNNER)
    for i in range(2):
        scheduler.submit(job(i, "app_then_hang", str(apps)))
    scheduler.submit(job(2, "noop", "queued behind a hanging app"))
    deadline = time.monotonic() + 10
    while len(noted_children(apps)) < 2 and time.monotonic() < deadline:
        scheduler.poll(0.05)
    children = list(noted_children(apps).values())
    scheduler.close(kill=True)
    with Scheduler(2, transport="mpi", world=world, runner=RUNNER) as again:
        again.submit(job(0, "noop", "after the kill"))
        after = collect(again, 1)
    return {"apps": len(children),
            "alive": [pid for pid in children if _alive(pid)],
            "after": after[0].value if after else None}


def abort(workdir: Path, world: Any) -> dict[str, Any]:
    """A worker loops in Python (nothing to cancel): exiting must not wait for it forever."""
    scheduler = Scheduler(2, transport="mpi", world=world, runner=RUNNER)
    scheduler.submit(job(0, "sleep", 600.0))
    scheduler.poll(0.3)
    scheduler.close(kill=True)
    return {"closed": True}


def _alive(pid: int) -> bool:
    return not is_zombie(pid)


CASES: dict[str, Callable[[Path, Any], dict[str, Any]]] = {
    f.__name__: f for f in (many_noops, failures, retries, nodes, sizes, drain, kill, abort)}


def main() -> int:
    world = launch.join()
    if isinstance(world, int):
        return world  # a worker rank, released
    workdir = Path(sys.argv[1])
    for name in sys.argv[2:]:
        try:
            outcome = CASES[name](workdir, world)
        except SchedulerAborted as error:
            outcome = {"aborted": str(error)}
        print(json.dumps({"case": name, **outcome}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
