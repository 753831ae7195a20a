"""Worker coordination wait as the study's Figs 9 and 12 draw it: per worker, the time
between the end of one task and the start of its next (the worker idle, waiting to be given
work), computed from a run's task spans."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.observe.spans import TaskSpan


@dataclass(frozen=True)
class Gap:
    """One worker's wait between two of its tasks (epoch seconds)."""

    worker: int
    begin: float  # the end of the earlier task
    end: float  # the start of the next

    @property
    def seconds(self) -> float:
        return self.end - self.begin


def worker_gaps(spans: Sequence[TaskSpan]) -> list[Gap]:
    """Per worker, tasks sorted by start: the gap from each task's end to the next one's start.
    Tasks that overlap on one worker (it runs several at once) leave no gap between them: the
    wait counts from the latest end so far."""
    by_worker: dict[int, list[TaskSpan]] = {}
    for span in spans:
        by_worker.setdefault(span.worker, []).append(span)
    gaps = []
    for worker, tasks in sorted(by_worker.items()):
        tasks.sort(key=lambda span: span.start)
        busy_until = tasks[0].end
        for task in tasks[1:]:
            if task.start > busy_until:
                gaps.append(Gap(worker, busy_until, task.start))
            busy_until = max(busy_until, task.end)
    return gaps


def wait_per_worker(spans: Sequence[TaskSpan]) -> dict[int, float]:
    """Total coordination wait of each worker that ran a task (0 for one never left idle)."""
    totals = {span.worker: 0.0 for span in spans}
    for gap in worker_gaps(spans):
        totals[gap.worker] += gap.seconds
    return totals
