"""The study's own charts (grouped bars with intervals, the workers' trace with their
coordination wait), and the run report's figures (completion overlays, per-task queueing)
drawn into the results directory."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from engine.observe.plots import PHASE_COLORS, PHASE_NAMES, draw_overlay, draw_trace  # noqa: E402
from engine.observe.spans import PHASES, WAIT, load_run  # noqa: E402
from study.coordination import worker_gaps  # noqa: E402

Interval = tuple[float, float]
OTHER = "other"  # a task's execution outside its logged stage-in, run and stage-out (worker overhead)
COLORS = {**PHASE_COLORS, OTHER: "#7f7f7f"}
NAMES = {WAIT: "worker coordination wait", OTHER: "execution outside the logged phases"}


def grouped_bars(groups: dict[str, dict[str, float]], path: str, title: str, ylabel: str,
                 intervals: dict[str, dict[str, Interval]] | None = None) -> str:
    """Groups side by side (e.g. one per store), one bar per series within each (e.g. staged,
    shared); `intervals` (same keys, (low, high)) are drawn as error bars."""
    series = list(dict.fromkeys(name for values in groups.values() for name in values))
    width = 0.8 / max(1, len(series))
    figure, axes = plt.subplots(figsize=(max(5.0, 1.6 * len(groups) + 2), 4))
    for index, name in enumerate(series):
        positions = [g + (index - (len(series) - 1) / 2) * width for g in range(len(groups))]
        heights = [values.get(name, 0.0) for values in groups.values()]
        bars = axes.bar(positions, heights, width, label=name)
        if intervals:
            spans = [(intervals.get(group) or {}).get(name) for group in groups]
            below = [height - span[0] if span else 0.0 for height, span in zip(heights, spans)]
            above = [span[1] - height if span else 0.0 for height, span in zip(heights, spans)]
            axes.errorbar(positions, heights, yerr=[below, above], fmt="none", ecolor="black", capsize=3)
        axes.bar_label(bars, fmt="%.1f", fontsize="x-small")
    axes.set_xticks(range(len(groups)), list(groups))
    axes.set_ylabel(ylabel)
    axes.set_title(title, fontsize="medium")
    axes.grid(axis="y", alpha=0.3)
    axes.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def completion_overlay(run_dirs: list[str], labels: list[str], out_dir: str, name: str, title: str) -> str:
    """The runs' cumulative completion curves in one plot (NAME_completion.png, and NAME.json,
    in `out_dir`); the makespans are the study's own figure, with their intervals."""
    paths = draw_overlay([load_run(run_dir) for run_dir in run_dirs], labels, out_dir, title, prefix=name,
                         makespans=False)
    return paths["overlay_completion.png"]


def queueing(run_dir: str, path: str, title: str) -> str:
    """A run's per-task queueing (ready to running, thin bars) beside its execution phases, drawn
    by the report."""
    return draw_trace(load_run(run_dir), path, title)


def worker_trace(run_dir: str, path: str, title: str) -> str:
    """The study's Figs 9/12: one row per worker, its tasks' stage-in, run and stage-out, and
    light bars where it waited between the end of one task and the start of its next."""
    run = load_run(run_dir)
    workers = sorted({span.worker for span in run.spans})
    figure, axes = plt.subplots(figsize=(10, 2.5 + 0.3 * len(workers)))
    bars: dict[tuple[int, str], list[tuple[float, float]]] = {}
    for span in run.spans:
        # the whole execution underneath: the worker's time around the logged phases shows too
        bars.setdefault((span.worker, OTHER), []).append((span.start - run.t0, span.end - span.start))
        for phase, begin, end in span.phases():
            if phase != WAIT:  # the task's own queueing is the other figure's
                bars.setdefault((span.worker, phase), []).append((begin - run.t0, end - begin))
    for gap in worker_gaps(run.spans):
        bars.setdefault((gap.worker, WAIT), []).append((gap.begin - run.t0, gap.seconds))
    for (worker, phase), segments in sorted(bars.items(), key=lambda item: item[0][1] != OTHER):
        # one artist per worker and phase (large runs stay fast), the whole executions first
        axes.broken_barh(segments, (worker - 0.35, 0.7), facecolors=COLORS[phase])
    drawn = [phase for phase in (*PHASES, OTHER) if any(key[1] == phase for key in bars)]
    axes.set_yticks(workers)
    axes.set_xlabel("seconds since the run started")
    axes.set_ylabel("worker")
    axes.set_title(title, fontsize="medium")
    axes.legend([plt.Rectangle((0, 0), 1, 1, color=COLORS[phase]) for phase in drawn],
                [NAMES.get(phase) or PHASE_NAMES[phase] for phase in drawn],
                loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path
