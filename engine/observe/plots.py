"""The report's figures as PNG (matplotlib, Agg): task trace with phases, completion, overlays.

Importable by study drivers: `draw_overlay(runs, labels, out_dir)` compares
several runs loaded with `engine.observe.spans.load_run`. The data behind each
figure comes from engine/observe/spans.py; this module only draws.
"""

from __future__ import annotations

import json
import os
from types import MappingProxyType
from typing import Any

from engine.observe.spans import PHASES, RUN, STAGE_IN, STAGE_OUT, WAIT, RunData, completion_curve, overlay_data

# Wait is light (ready, not yet running); the three execution phases are strong and distinct.
PHASE_COLORS = MappingProxyType({WAIT: "#cfd8e3", STAGE_IN: "#e69f00", RUN: "#0072b2", STAGE_OUT: "#009e73"})
PHASE_NAMES = MappingProxyType({WAIT: "coordination wait", STAGE_IN: "stage-in", RUN: "run",
                                STAGE_OUT: "stage-out"})
FAILED_EDGE = "#d62728"


def _pyplot() -> Any:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def draw_trace(run: RunData, path: str, title: str = "task trace: coordination wait and execution phases") -> str:
    """One row per worker; per task a thin light wait bar (submit to start, under the row,
    since it overlaps the worker's earlier tasks) and its stage-in, run, stage-out back to back."""
    plt = _pyplot()
    workers = sorted({s.worker for s in run.spans})
    fig, ax = plt.subplots(figsize=(10, 3 + 0.25 * len(workers)))
    # One broken_barh per (worker, phase): one artist per segment would take minutes on large runs.
    bars: dict[tuple[int, str], list[tuple[float, float]]] = {}
    failed: list[tuple[int, float, float]] = []
    for s in run.spans:
        for phase, begin, end in s.phases():
            bars.setdefault((s.worker, phase), []).append((begin - run.t0, end - begin))
        if not s.ok:
            failed.append((s.worker, s.start - run.t0, s.end - s.start))
    for (worker, phase), segments in bars.items():
        if phase == WAIT:  # under the row: it overlaps the worker's earlier tasks
            ax.broken_barh(segments, (worker - 0.4, 0.16), facecolors=PHASE_COLORS[WAIT], alpha=0.6)
        else:
            ax.broken_barh(segments, (worker - 0.22, 0.6), facecolors=PHASE_COLORS[phase])
    for worker, begin, seconds in failed:
        ax.broken_barh([(begin, seconds)], (worker - 0.22, 0.6), facecolors="none", edgecolors=FAILED_EDGE,
                       linewidth=1.2)
    drawn = {phase for _, phase in bars}
    ax.set_yticks(workers)
    ax.set_xlabel("seconds since the run started")
    ax.set_ylabel("worker")
    ax.set_title(title)
    legend = [phase for phase in PHASES if phase in drawn]
    if legend:
        handles = [plt.Rectangle((0, 0), 1, 1, color=PHASE_COLORS[p]) for p in legend]
        names = [PHASE_NAMES[p] for p in legend]
        if failed:
            handles.append(plt.Rectangle((0, 0), 1, 1, facecolor="white", edgecolor=FAILED_EDGE))
            names.append("failed")
        ax.legend(handles, names, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def draw_completion(run: RunData, path: str) -> str:
    """Tasks finished over time, from the run start."""
    plt = _pyplot()
    curve = completion_curve(run.spans, run.t0)
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.step([t for t, _ in curve], [n for _, n in curve], where="post")
    ax.set_xlabel("seconds since the run started")
    ax.set_ylabel("tasks completed")
    ax.set_title("cumulative task completion")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def draw_overlay(runs: list[RunData], labels: list[str], out_dir: str, title: str = "",
                 prefix: str = "overlay", makespans: bool = True) -> dict[str, str]:
    """Write PREFIX_completion.png, PREFIX_makespan.png (unless not `makespans`: a caller
    with repeats draws its own, with intervals) and PREFIX.json into `out_dir` (titles start
    with `title` when given); returns their paths by the default names."""
    overlay = overlay_data(runs, labels)
    os.makedirs(out_dir, exist_ok=True)
    names = ("overlay_completion.png", "overlay_makespan.png", "overlay.json") if makespans else (
        "overlay_completion.png", "overlay.json")
    paths = {name: os.path.join(out_dir, name.replace("overlay", prefix, 1)) for name in names}
    lead = f"{title}: " if title else ""
    plt = _pyplot()

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for entry in overlay:
        curve = entry["completion"]
        ax.step([t for t, _ in curve], [n for _, n in curve], where="post", label=entry["label"])
    ax.set_xlabel("seconds since the run's first task started")
    ax.set_ylabel("tasks completed")
    ax.set_title(f"{lead}cumulative task completion")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(paths["overlay_completion.png"], dpi=100)
    plt.close(fig)

    if makespans:
        fig, ax = plt.subplots(figsize=(max(4.0, 1.2 * len(overlay) + 2), 4))
        positions = range(len(overlay))
        ax.bar(positions, [entry["makespan_s"] for entry in overlay], color="#0072b2")
        ax.set_xticks(list(positions), [entry["label"] for entry in overlay], rotation=30 if len(overlay) > 4 else 0)
        ax.set_ylabel("makespan (s)")
        ax.set_title(f"{lead}makespan")
        ax.grid(alpha=0.3, axis="y")
        fig.tight_layout()
        fig.savefig(paths["overlay_makespan.png"], dpi=100)
        plt.close(fig)

    with open(paths["overlay.json"], "w", encoding="utf-8") as f:
        json.dump({"runs": overlay}, f, indent=1)
    return paths
