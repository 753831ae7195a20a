"""The I/O part's figures: one per pattern (aggregate MB/s against file size, each store's
median with its 95% interval, every repeat as a dot, hollow where the host was saturated)
and spread.png (every repeat relative to its median, per store, pattern and size)."""

from __future__ import annotations

import os
import statistics
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

SPREAD = "spread.png"


def figure_names(patterns: tuple[str, ...] | list[str]) -> list[str]:
    return [f"{pattern}.png" for pattern in patterns] + [SPREAD]


def _dots(axes: Any, xs: list[float], row: dict[str, Any], color: str) -> None:
    """Every repeat of `row` at `xs`: filled if usable, hollow if the host was saturated."""
    flags = row["saturated"] or [False] * len(row["samples"])
    for saturated in (False, True):
        ys = [value for value, flag in zip(row["samples"], flags) if flag is saturated]
        if ys:
            axes.scatter(xs[:len(ys)], ys, s=14, zorder=3, alpha=0.7, linewidths=1,
                         facecolors="none" if saturated else color, edgecolors=color)


def pattern_figure(report: dict[str, Any], pattern: str) -> Figure:
    """Aggregate MB/s against size for one pattern: the median with its 95% interval per store,
    joined where measured on the main node count; another node count is drawn as squares."""
    parameters = report["parameters"]
    main_nodes = len(parameters["nodes"])
    figure, axes = plt.subplots(figsize=(7.5, 4.8))
    other_counts: set[int] = set()
    handles: list[Line2D] = []
    labels: list[str] = []
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for index, store in enumerate(parameters["stores"]):
        rows = sorted((r for r in report["results"] if r["store"] == store and r["pattern"] == pattern),
                      key=lambda r: r["size_mb"])
        color = colors[index % len(colors)]
        handles.append(Line2D([], [], marker="o", color=color))  # every store, even one with no median
        labels.append(store)
        for same in (True, False):
            part = [r for r in rows if (r["nodes"] == main_nodes) is same]
            if not part:
                continue
            points = [r for r in part if r["median"] is not None]
            if points:
                lows = [r["median"] - r["ci95"][0] if r["ci95"] else 0.0 for r in points]
                highs = [r["ci95"][1] - r["median"] if r["ci95"] else 0.0 for r in points]
                axes.errorbar([r["size_mb"] for r in points], [r["median"] for r in points], yerr=[lows, highs],
                              marker="o" if same else "s", capsize=3, color=color,
                              linestyle="-" if same else "none")
            for row in part:
                _dots(axes, [row["size_mb"]] * len(row["samples"]), row, color)
            if not same:
                other_counts.update(r["nodes"] for r in part)
    handles.append(Line2D([], [], marker="o", linestyle="none", color="grey", markerfacecolor="none"))
    labels.append(f"a repeat on a saturated host (> {parameters.get('saturated_above', 0.85):.0%} busy; "
                  "left out of the median)")
    if other_counts:
        handles.append(Line2D([], [], marker="s", linestyle="none", color="grey"))
        counts = sorted(other_counts)
        labels.append(f"squares: {', '.join(map(str, counts))} node{'s' if counts != [1] else ''} at once")
    axes.set_xscale("log")
    axes.set_yscale("log")
    for axis in (axes.xaxis, axes.yaxis):
        axis.set_major_formatter(ticker.ScalarFormatter())
    axes.set_xlabel("file size (MB)")
    axes.set_ylabel("aggregate MB/s (all nodes)")
    axes.set_title(f"{pattern.replace('_', '-')}: one file per node, {main_nodes} nodes at once\n"
                   f"median and 95% interval of {parameters['repeats']} repeats; dots: each repeat", fontsize=9)
    axes.legend(handles, labels, fontsize=7)
    axes.grid(True, which="both", alpha=0.3)
    figure.tight_layout()
    return figure


def spread_figure(report: dict[str, Any]) -> Figure:
    """Each repeat's aggregate over its (store, pattern, size)'s median of all repeats."""
    parameters = report["parameters"]
    stores, patterns = parameters["stores"], parameters["patterns"]
    sizes = sorted({r["size_mb"] for r in report["results"]})
    width = 0.8 / len(sizes)
    figure, panels = plt.subplots(1, len(patterns), figsize=(12, 4), sharey=True, squeeze=False)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for panel, pattern in zip(panels[0], patterns):
        for index, size in enumerate(sizes):
            color = colors[index % len(colors)]
            for position, store in enumerate(stores):
                row = next((r for r in report["results"] if r["store"] == store and r["pattern"] == pattern
                            and r["size_mb"] == size), None)
                if row is None:
                    continue
                middle = statistics.median(row["samples"]) or 1.0
                relative = {**row, "samples": [value / middle for value in row["samples"]]}
                _dots(panel, [position + index * width] * len(row["samples"]), relative, color)
            panel.scatter([], [], color=color, s=14, label=f"{size} MB")
        panel.axhline(1.0, color="grey", linewidth=0.8)
        panel.set_xticks([position + 0.4 - width / 2 for position in range(len(stores))], stores, rotation=30,
                         fontsize=8)
        panel.set_title(pattern.replace("_", "-"), fontsize=9)
        panel.grid(True, axis="y", alpha=0.3)
    panels[0][0].set_ylabel(f"each of {parameters['repeats']} repeats / their median (hollow: saturated host)",
                            fontsize=8)
    panels[0][-1].legend(fontsize=8)
    figure.tight_layout()
    return figure


def draw(report: dict[str, Any], out_dir: str) -> list[str]:
    """Write every figure of the report into `out_dir`; returns their paths."""
    paths = []
    figures = [(f"{pattern}.png", pattern_figure(report, pattern)) for pattern in report["parameters"]["patterns"]]
    for name, figure in [*figures, (SPREAD, spread_figure(report))]:
        paths.append(os.path.join(out_dir, name))
        figure.savefig(paths[-1], dpi=110)
        plt.close(figure)
    return paths
