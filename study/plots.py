"""The study's own charts (bars, grouped bars), and the run report's figures (completion
overlays, task traces) drawn into the results directory."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from engine.observe.plots import draw_overlay, draw_trace  # noqa: E402
from engine.observe.spans import load_run  # noqa: E402


def grouped_bars(groups: dict[str, dict[str, float]], path: str, title: str, ylabel: str) -> str:
    """Groups side by side (e.g. one per store), one bar per series within each (e.g. staged, shared)."""
    series = list(dict.fromkeys(name for values in groups.values() for name in values))
    width = 0.8 / max(1, len(series))
    figure, axes = plt.subplots(figsize=(max(5.0, 1.6 * len(groups) + 2), 4))
    for index, name in enumerate(series):
        positions = [g + (index - (len(series) - 1) / 2) * width for g in range(len(groups))]
        bars = axes.bar(positions, [values.get(name, 0.0) for values in groups.values()], width, label=name)
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


def completion_overlay(run_dirs: list[str], labels: list[str], out_dir: str, name: str, title: str) -> list[str]:
    """The runs' cumulative completion curves in one plot and their makespans side by side
    (NAME_completion.png, NAME_makespan.png, NAME.json in `out_dir`)."""
    paths = draw_overlay([load_run(run_dir) for run_dir in run_dirs], labels, out_dir, title, prefix=name)
    return [paths["overlay_completion.png"], paths["overlay_makespan.png"]]


def trace(run_dir: str, path: str, title: str) -> str:
    """A run's task trace (wait, stage-in, run, stage-out per task), drawn by the report."""
    return draw_trace(load_run(run_dir), path, title)
