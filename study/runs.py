"""One workflow run of the study as data (from the report's span layer)."""

from __future__ import annotations

import os
import statistics
from dataclasses import dataclass, field
from typing import Any

from engine.observe.spans import load_run, summarize
from engine.observe.timeline import write_timeline
from study.coordination import wait_per_worker


@dataclass
class RunResult:
    """A finished (or failed) run: where its log is, how long the command took, its figures."""

    tag: str
    run_dir: str
    wall_s: float
    summary: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    def as_dict(self, label: str | None = None) -> dict[str, Any]:
        record: dict[str, Any] = {"tag": self.tag, "run_dir": self.run_dir, "wall_s": round(self.wall_s, 3),
                                  "summary": self.summary, "error": self.error}
        if label is not None and self.error is None:
            record["label_summary"] = label_summary(self.run_dir, label)
        return record


def run_summary(tag: str, run_dir: str, wall_s: float) -> RunResult:
    """The report's figures of a finished run, with the nodes its tasks ran on; its interactive
    timeline is written beside its log."""
    run = load_run(run_dir)
    if not run.spans:
        return RunResult(tag, run_dir, wall_s, error="the run log holds no finished task")
    summary = summarize(run.spans, run.workers).as_dict()
    summary["nodes"] = sorted({span.node for span in run.spans})
    waits = wait_per_worker(run.spans)  # the workers' idle time between tasks (Figs 9/12)
    summary["worker_wait_s_total"] = round(sum(waits.values()), 3)
    summary["worker_wait_s_mean"] = round(sum(waits.values()) / len(waits), 3)
    write_timeline(run, os.path.join(run_dir, "timeline.html"))
    return RunResult(tag, run_dir, wall_s, summary)


def label_summary(run_dir: str, label: str) -> dict[str, Any]:
    """The tasks of one label only (e.g. the digest stage of the stream workflow)."""
    spans = [span for span in load_run(run_dir).spans if span.label == label]
    if not spans:
        return {"tasks": 0}
    return {"tasks": len(spans),
            "makespan_s": round(max(s.end for s in spans) - min(s.start for s in spans), 3),
            "mean_task_s": round(statistics.fmean(s.end - s.start for s in spans), 3),
            "mean_stage_in_s": round(statistics.fmean(s.stage_in_s or 0.0 for s in spans), 3),
            "mean_run_s": round(statistics.fmean(s.run_seconds for s in spans), 3)}
