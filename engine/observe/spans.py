"""A run's tasks as spans with phases, and the figures computed from them (no drawing).

Reads `events.jsonl` (engine/observe/runlog.py) and pairs each task's submit,
start and end records into a `TaskSpan`: coordination wait (ready, handed to the
scheduler, not yet running: scheduler queue, dispatch message, worker queue) is
`start − submit`; the execution splits into stage-in, run and stage-out when the
end record carries `stage_in_s`, `run_s`, `stage_out_s` (older logs and Python
leaves do not: then the whole execution counts as run). `summarize` gives the
run's figures, `completion_curve` and `overlay_data` what several runs compare on.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Optional

from engine.errors import UsageError
from engine.observe.runlog import read_events

WAIT, STAGE_IN, RUN, STAGE_OUT = "wait", "stage_in", "run", "stage_out"
PHASES = (WAIT, STAGE_IN, RUN, STAGE_OUT)


@dataclass
class TaskSpan:
    """One finished task attempt as the log recorded it (times in epoch seconds)."""

    task: int
    label: str
    worker: int
    node: str
    start: float
    end: float
    ok: bool
    kind: str = ""
    command: list[str] | str = ""
    submit: Optional[float] = None
    stage_in_s: Optional[float] = None
    run_s: Optional[float] = None
    stage_out_s: Optional[float] = None
    bytes_in: Optional[int] = None
    bytes_out: Optional[int] = None

    @property
    def wait(self) -> float:
        """Coordination wait: ready until running. The start time is the worker's clock, so on
        another machine a small skew could make it negative; that counts as no wait."""
        return max(0.0, self.start - self.submit) if self.submit is not None else 0.0

    @property
    def run_seconds(self) -> float:
        """The app's own run time: as logged, else the execution minus any staging."""
        if self.run_s is not None:
            return self.run_s
        return max(0.0, self.end - self.start - (self.stage_in_s or 0.0) - (self.stage_out_s or 0.0))

    def phases(self) -> list[tuple[str, float, float]]:
        """(phase, begin, end) in time order: the wait before the start (if the submit time is
        known), then the stage-in, run and stage-out the log holds, back to back from the start."""
        spans = [(WAIT, self.start - self.wait, self.start)] if self.submit is not None else []
        at = self.start
        for phase, seconds in ((STAGE_IN, self.stage_in_s), (RUN, self.run_seconds), (STAGE_OUT, self.stage_out_s)):
            if seconds is not None:
                spans.append((phase, at, at + seconds))
                at += seconds
        return spans


@dataclass
class RunData:
    """The spans of one run with its worker count and start and end times."""

    run_dir: str
    spans: list[TaskSpan]
    workers: int
    t0: float
    t1: float

    @property
    def name(self) -> str:
        return os.path.basename(os.path.normpath(self.run_dir))

    @property
    def first_start(self) -> float:
        return min((s.start for s in self.spans), default=self.t0)


@dataclass
class RunSummary:
    """The figures of one run."""

    tasks: int
    failed: int
    workers: int
    makespan: float
    task_seconds: float
    wait_s: float = 0.0
    stage_in_s: float = 0.0
    run_s: float = 0.0
    stage_out_s: float = 0.0
    bytes_in: int = 0
    bytes_out: int = 0
    phased_tasks: int = 0  # tasks whose log splits stage-in/run/stage-out (the others count as all run)

    @property
    def ideal_makespan(self) -> float:
        return self.task_seconds / self.workers if self.workers else 0.0

    @property
    def ratio(self) -> float:
        return self.makespan / self.ideal_makespan if self.ideal_makespan else 0.0

    def as_dict(self) -> dict[str, Any]:
        figures: dict[str, Any] = {
            "tasks": self.tasks, "failed": self.failed, "workers": self.workers,
            "makespan_s": round(self.makespan, 3), "task_seconds": round(self.task_seconds, 3),
            "ideal_makespan_s": round(self.ideal_makespan, 3), "makespan_over_ideal": round(self.ratio, 3)}
        for phase in PHASES:
            total = getattr(self, f"{phase}_s")
            figures[f"{phase}_s_total"] = round(total, 3)
            figures[f"{phase}_s_mean"] = round(total / self.tasks, 6) if self.tasks else 0.0
        figures["bytes_in"] = self.bytes_in
        figures["bytes_out"] = self.bytes_out
        figures["phased_tasks"] = self.phased_tasks
        return figures


def load_run(run_dir: str) -> RunData:
    """The spans of the run in `run_dir`; a missing or unreadable log is a usage error."""
    try:
        events = read_events(run_dir)
    except (FileNotFoundError, NotADirectoryError):
        raise UsageError(f"no event log in {run_dir} (expected {os.path.join(run_dir, 'events.jsonl')})") from None
    except json.JSONDecodeError as e:
        raise UsageError(f"{run_dir}/events.jsonl is not valid JSON lines: {e}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"cannot read {run_dir}/events.jsonl: {e}") from None
    try:
        return _pair(run_dir, events)
    except (KeyError, TypeError, ValueError) as e:
        raise UsageError(f"{run_dir}/events.jsonl is not a swiftcloud event log (bad record: {e!r})") from None


def _pair(run_dir: str, events: list[dict[str, Any]]) -> RunData:
    submits: dict[int, float] = {}
    starts: dict[int, dict[str, Any]] = {}
    spans = []
    for e in events:
        kind = e.get("event")
        if kind == "submit":
            submits[e["task"]] = float(e["time"])
        elif kind == "start":
            starts[e["task"]] = e
        elif kind == "end" and e["task"] in starts:
            start = starts[e["task"]]
            spans.append(TaskSpan(
                e["task"], e.get("label", ""), e.get("worker", -1), e.get("node", ""), float(start["time"]),
                float(e["time"]), e.get("status") == "ok", e.get("kind", ""), start.get("command", ""),
                submits.get(e["task"]), _number(e, "stage_in_s"), _number(e, "run_s"), _number(e, "stage_out_s"),
                _whole(e, "bytes_in"), _whole(e, "bytes_out")))
    run_start = next((e for e in events if e.get("event") == "run_start"), None)
    run_end = next((e for e in events if e.get("event") == "run_end"), None)
    workers = run_start["workers"] if run_start else len({s.worker for s in spans}) or 1
    # Without a run_start record (a log cut short), the run starts with its earliest submit or start.
    t0 = float(run_start["time"]) if run_start else min((s.start - s.wait for s in spans), default=0.0)
    t1 = float(run_end["time"]) if run_end else max((s.end for s in spans), default=t0)
    return RunData(run_dir, spans, workers, t0, t1)


def _number(record: dict[str, Any], key: str) -> Optional[float]:
    value = record.get(key)
    return None if value is None else float(value)


def _whole(record: dict[str, Any], key: str) -> Optional[int]:
    value = record.get(key)
    return None if value is None else int(value)


def summarize(spans: list[TaskSpan], workers: int) -> RunSummary:
    """Makespan from the first task start to the last task end; phase seconds and bytes summed."""
    if not spans:
        return RunSummary(0, 0, workers, 0.0, 0.0)
    return RunSummary(
        len(spans), sum(not s.ok for s in spans), workers,
        max(s.end for s in spans) - min(s.start for s in spans), sum(s.end - s.start for s in spans),
        wait_s=sum(s.wait for s in spans), stage_in_s=sum(s.stage_in_s or 0.0 for s in spans),
        run_s=sum(s.run_seconds for s in spans), stage_out_s=sum(s.stage_out_s or 0.0 for s in spans),
        bytes_in=sum(s.bytes_in or 0 for s in spans), bytes_out=sum(s.bytes_out or 0 for s in spans),
        phased_tasks=sum(s.run_s is not None for s in spans))


def completion_curve(spans: list[TaskSpan], origin: float) -> list[tuple[float, int]]:
    """(seconds since `origin`, tasks finished by then), one point per task end, in time order."""
    return [(end - origin, n) for n, end in enumerate(sorted(s.end for s in spans), start=1)]


def overlay_data(runs: list[RunData], labels: list[str]) -> list[dict[str, Any]]:
    """Per run: its label, figures and completion curve timed from its first task start."""
    if len(labels) != len(runs):
        raise UsageError(f"{len(labels)} label(s) for {len(runs)} run(s): give one label per run")
    overlay = []
    for run, label in zip(runs, labels):
        summary = summarize(run.spans, run.workers)
        curve = completion_curve(run.spans, run.first_start)
        overlay.append({"label": label, "run_dir": run.run_dir, "tasks": summary.tasks, "failed": summary.failed,
                        "makespan_s": round(summary.makespan, 3),
                        "completion": [[round(t, 6), n] for t, n in curve]})
    return overlay
