"""`swiftcloud report RUN [RUN ...]`: figures and views of runs, from their event logs.

For one run: the summary (tasks, makespan, summed task time, ideal makespan =
summed task time / workers, their ratio, and the seconds spent in coordination
wait, stage-in, run and stage-out, with bytes moved), and beside the log
trace.png (one row per worker, each task split into its phases), completion.png,
timeline.html (interactive), trace.json (Chrome trace events) and report.html
linking them. For several runs, `overlay` compares their completion curves and
makespans in one directory. Data: engine/observe/spans.py; drawing:
plots.py and timeline.py.
"""

from __future__ import annotations

import html
import os
from typing import Optional

from engine.observe.plots import draw_completion, draw_overlay, draw_trace
from engine.observe.spans import RunData, RunSummary, load_run, summarize
from engine.observe.timeline import write_chrome_trace, write_timeline

RUN_FILES = ("trace.png", "completion.png", "timeline.html", "trace.json", "report.html")


def write_html(summary: RunSummary, run_dir: str) -> str:
    path = os.path.join(run_dir, "report.html")
    rows = "".join(f"<tr><th>{html.escape(k)}</th><td>{v}</td></tr>" for k, v in summary.as_dict().items())
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"<!doctype html><meta charset='utf-8'><title>swiftcloud run {html.escape(run_dir)}</title>"
                f"<h1>Run {html.escape(run_dir)}</h1><table>{rows}</table>"
                "<p><a href='timeline.html'>interactive timeline</a> · "
                "<a href='trace.json'>trace.json</a> (open in Perfetto or chrome://tracing)</p>"
                "<h2>Task trace</h2><img src='trace.png' alt='task trace'>"
                "<h2>Cumulative completion</h2><img src='completion.png' alt='cumulative completion'>\n")
    return path


def write_run_views(run: RunData, summary: RunSummary) -> list[str]:
    """Every file of one run's report, written beside its event log."""
    def at(name: str) -> str:
        return os.path.join(run.run_dir, name)
    return [draw_trace(run, at("trace.png")), draw_completion(run, at("completion.png")),
            write_timeline(run, at("timeline.html")), write_chrome_trace(run, at("trace.json")),
            write_html(summary, run.run_dir)]


def report(run_dir: str, plots: bool = True) -> RunSummary:
    """Summarize a run and (optionally) write its figures and pages."""
    run = load_run(run_dir)
    summary = summarize(run.spans, run.workers)
    if plots and run.spans:
        write_run_views(run, summary)
    return summary


def overlay(run_dirs: list[str], out_dir: str, labels: Optional[list[str]] = None) -> dict[str, str]:
    """Compare runs (default labels: their directory names); returns the written files by name."""
    runs = [load_run(run_dir) for run_dir in run_dirs]
    return draw_overlay(runs, labels if labels is not None else [run.name for run in runs], out_dir)
