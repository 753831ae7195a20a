"""Task count, makespan and ideal makespan of one run, from its `runs/NNN/events.jsonl`.

    python -m apps.blast.figures runs/007

Makespan is first task start to last task end; the ideal makespan is the sum of
task durations divided by the number of workers (what perfect packing with zero
overhead would give); their ratio says how much of the workers' time went to
dispatch, dependencies and idling. Also prints the wall time of the whole run
(compilation and start-up included) and the mean duration per task label.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Sequence


@dataclass
class RunFigures:
    """What one run's event log says about its tasks."""

    workers: int
    tasks: int
    makespan: float
    busy: float
    wall: float | None
    per_kind: dict[str, int] = field(default_factory=dict)  # kind (app, python, ...) -> count
    per_label: dict[str, tuple[int, float]] = field(default_factory=dict)  # label -> (count, mean s)

    @property
    def ideal_makespan(self) -> float:
        return self.busy / self.workers

    @property
    def ratio(self) -> float:
        return self.makespan / self.ideal_makespan if self.ideal_makespan else float("nan")


def read_figures(run_dir: str) -> RunFigures:
    """Figures of the run in `run_dir`; raises ValueError if it holds no finished task."""
    with open(os.path.join(run_dir, "events.jsonl"), encoding="utf-8") as log:
        events = [json.loads(line) for line in log if line.strip()]
    workers = next((e["workers"] for e in events if e["event"] == "run_start"), 0)
    wall = next((e["elapsed"] for e in events if e["event"] == "run_end"), None)
    starts = {e["task"]: e for e in events if e["event"] == "start"}
    ends = [e for e in events if e["event"] == "end" and e["task"] in starts]
    if not ends or workers < 1:
        raise ValueError(f"{run_dir}: no finished task in the event log")
    durations: dict[str, list[float]] = defaultdict(list)
    for end in ends:
        durations[end["label"]].append(end["time"] - starts[end["task"]]["time"])
    first_start = min(starts[e["task"]]["time"] for e in ends)
    last_end = max(e["time"] for e in ends)
    return RunFigures(
        workers=workers,
        tasks=len(ends),
        makespan=last_end - first_start,
        busy=sum(sum(d) for d in durations.values()),
        wall=wall,
        per_kind=dict(sorted(Counter(end["kind"] for end in ends).items())),
        per_label={label: (len(d), sum(d) / len(d)) for label, d in sorted(durations.items())},
    )


def format_figures(figures: RunFigures) -> str:
    kinds = ", ".join(f"{count} {kind}" for kind, count in figures.per_kind.items())
    lines = [
        f"tasks: {figures.tasks} ({kinds}) on {figures.workers} workers",
        f"makespan: {figures.makespan:.1f} s (first task start to last task end)",
        f"ideal makespan: {figures.ideal_makespan:.1f} s (sum of task times"
        f" {figures.busy:.1f} s / {figures.workers} workers)",
        f"ratio makespan / ideal: {figures.ratio:.2f}",
    ]
    if figures.wall is not None:
        lines.append(f"wall time of the run: {figures.wall:.1f} s")
    lines.extend(f"  {label}: {count} tasks, mean {mean:.3f} s"
                 for label, (count, mean) in figures.per_label.items())
    return "\n".join(lines)


def main(argv: Sequence[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m apps.blast.figures runs/NNN", file=sys.stderr)
        return 2
    try:
        print(format_figures(read_figures(argv[0])))
    except (OSError, ValueError, KeyError) as e:
        print(f"figures: cannot read {argv[0]}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
