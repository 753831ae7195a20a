"""`swiftcloud report runs/NNN`: figures of one run, from its event log.

Prints the summary (tasks, makespan, summed task time, ideal makespan =
summed task time / workers, and their ratio) and draws two plots as PNG plus
a small HTML page beside the log: the task trace (one bar per task, one row
per worker) and the cumulative completion curve (tasks finished over time).
"""

from __future__ import annotations

import html
import json
import os
from dataclasses import dataclass
from typing import Any

from engine.errors import UsageError
from engine.observe.runlog import read_events


@dataclass
class TaskSpan:
    """One finished task attempt as the log recorded it."""

    task: int
    label: str
    worker: int
    node: str
    start: float
    end: float
    ok: bool


@dataclass
class RunSummary:
    """The figures of one run."""

    tasks: int
    failed: int
    workers: int
    makespan: float
    task_seconds: float

    @property
    def ideal_makespan(self) -> float:
        return self.task_seconds / self.workers if self.workers else 0.0

    @property
    def ratio(self) -> float:
        return self.makespan / self.ideal_makespan if self.ideal_makespan else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"tasks": self.tasks, "failed": self.failed, "workers": self.workers,
                "makespan_s": round(self.makespan, 3), "task_seconds": round(self.task_seconds, 3),
                "ideal_makespan_s": round(self.ideal_makespan, 3), "makespan_over_ideal": round(self.ratio, 3)}


def load_spans(run_dir: str) -> tuple[list[TaskSpan], int, float, float]:
    """Task spans, worker count, and the run's start and end times."""
    try:
        events = read_events(run_dir)
    except FileNotFoundError:
        raise UsageError(f"no event log in {run_dir} (expected {os.path.join(run_dir, 'events.jsonl')})") from None
    except json.JSONDecodeError as e:
        raise UsageError(f"{run_dir}/events.jsonl is not valid JSON lines: {e}") from None
    starts = {e["task"]: e for e in events if e.get("event") == "start"}
    spans = [TaskSpan(e["task"], e.get("label", ""), e.get("worker", -1), e.get("node", ""),
                      starts[e["task"]]["time"], e["time"], e.get("status") == "ok")
             for e in events if e.get("event") == "end" and e["task"] in starts]
    run_start = next((e for e in events if e.get("event") == "run_start"), None)
    run_end = next((e for e in events if e.get("event") == "run_end"), None)
    workers = run_start["workers"] if run_start else len({s.worker for s in spans}) or 1
    t0 = run_start["time"] if run_start else min((s.start for s in spans), default=0.0)
    t1 = run_end["time"] if run_end else max((s.end for s in spans), default=t0)
    return spans, workers, t0, t1


def summarize(spans: list[TaskSpan], workers: int) -> RunSummary:
    """Makespan from the first task start to the last task end."""
    if not spans:
        return RunSummary(0, 0, workers, 0.0, 0.0)
    makespan = max(s.end for s in spans) - min(s.start for s in spans)
    return RunSummary(len(spans), sum(not s.ok for s in spans), workers, makespan,
                      sum(s.end - s.start for s in spans))


def draw(spans: list[TaskSpan], t0: float, run_dir: str) -> tuple[str, str]:
    """Write trace.png and completion.png into the run directory."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    trace_path = os.path.join(run_dir, "trace.png")
    completion_path = os.path.join(run_dir, "completion.png")
    labels = sorted({s.label for s in spans})
    colors = {label: plt.cm.tab10(i % 10) for i, label in enumerate(labels)}
    fig, ax = plt.subplots(figsize=(10, 3 + 0.2 * len({s.worker for s in spans})))
    for s in spans:
        ax.barh(s.worker, s.end - s.start, left=s.start - t0, height=0.8,
                color=colors[s.label] if s.ok else "red", edgecolor="none")
    ax.set_yticks(sorted({s.worker for s in spans}))
    ax.set_xlabel("seconds since the run started")
    ax.set_ylabel("worker")
    ax.set_title("task trace")
    handles = [plt.Rectangle((0, 0), 1, 1, color=colors[label]) for label in labels[:10]]
    if handles:
        ax.legend(handles, labels[:10], loc="upper right", fontsize="small")
    fig.tight_layout()
    fig.savefig(trace_path, dpi=100)
    plt.close(fig)

    ends = sorted(s.end - t0 for s in spans)
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.step(ends, range(1, len(ends) + 1), where="post")
    ax.set_xlabel("seconds since the run started")
    ax.set_ylabel("tasks completed")
    ax.set_title("cumulative task completion")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(completion_path, dpi=100)
    plt.close(fig)
    return trace_path, completion_path


def write_html(summary: RunSummary, run_dir: str) -> str:
    path = os.path.join(run_dir, "report.html")
    rows = "".join(f"<tr><th>{html.escape(k)}</th><td>{v}</td></tr>" for k, v in summary.as_dict().items())
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"<!doctype html><meta charset='utf-8'><title>swiftcloud run {html.escape(run_dir)}</title>"
                f"<h1>Run {html.escape(run_dir)}</h1><table>{rows}</table>"
                "<h2>Task trace</h2><img src='trace.png' alt='task trace'>"
                "<h2>Cumulative completion</h2><img src='completion.png' alt='cumulative completion'>\n")
    return path


def report(run_dir: str, plots: bool = True) -> RunSummary:
    """Summarize a run and (optionally) draw its plots and HTML page."""
    spans, workers, t0, _ = load_spans(run_dir)
    summary = summarize(spans, workers)
    if plots and spans:
        draw(spans, t0, run_dir)
        write_html(summary, run_dir)
    return summary
