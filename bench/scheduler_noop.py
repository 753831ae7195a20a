#!/usr/bin/env python3
"""Benchmark: throughput of no-op tasks, local `Scheduler` vs `ProcessPoolExecutor`.

Both run N no-op tasks on the same number of worker processes, timed from
creating the pool to the last result (worker start-up included). The
reference, in the same run, is `concurrent.futures.ProcessPoolExecutor` with
one `submit` per task. Prints one JSON line with tasks/s and the ratio
(> 1: the scheduler is faster).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, wait

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine.scheduler.dispatch import Scheduler  # noqa: E402
from engine.task.contract import Task  # noqa: E402


def noop(payload: int) -> int:
    """The task: return the payload."""
    return payload


def scheduler_seconds(tasks: int, workers: int) -> float:
    started = time.perf_counter()
    scheduler = Scheduler(workers, runner=noop)
    for i in range(tasks):
        scheduler.submit(Task(i, "python", i, label="noop"))
    done = 0
    while done < tasks:
        completions = scheduler.poll(None)
        if not all(c.ok for c in completions):
            raise SystemExit(f"a no-op failed: {[c.error for c in completions if not c.ok][:3]}")
        done += len(completions)
    elapsed = time.perf_counter() - started
    scheduler.close()
    return elapsed


def pool_seconds(tasks: int, workers: int) -> float:
    started = time.perf_counter()
    with ProcessPoolExecutor(workers) as pool:
        futures = [pool.submit(noop, i) for i in range(tasks)]
        wait(futures)
        elapsed = time.perf_counter() - started
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=20_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs each")
    args = parser.parse_args()
    ours = min(scheduler_seconds(args.tasks, args.workers) for _ in range(args.repeat))
    theirs = min(pool_seconds(args.tasks, args.workers) for _ in range(args.repeat))
    print(json.dumps({
        "benchmark": "scheduler_noop",
        "tasks": args.tasks,
        "workers": args.workers,
        "scheduler_tasks_per_s": round(args.tasks / ours),
        "process_pool_tasks_per_s": round(args.tasks / theirs),
        "ratio": round(theirs / ours, 2),
    }))


if __name__ == "__main__":
    main()
