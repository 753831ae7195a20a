"""The study's links part (the paper's Figs 1-2): the emulated cluster's calibration.

`cluster.check.measure` measures, between every pair of regions (and within each), the TCP
bandwidth and the round-trip latency, and each node's disk and S3's first-byte latency,
against what the region file configures. This part runs it once under a CpuWatch, keeps its
dict as it is (plus the CPU window) and draws two region x region heatmaps as the paper
does: bandwidth in Mbit/s and round trip in ms, each cell "measured / configured".

Writes links.json, bandwidth.png and latency.png into the output directory.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from cluster import check  # noqa: E402
from cluster.cpuwatch import CpuWatch  # noqa: E402
from cluster.state import ClusterState  # noqa: E402

Say = Callable[[str], None]
# figure file, measured key, configured key, title, unit
HEATMAPS = (
    ("bandwidth.png", "mbit", "configured_mbit", "TCP bandwidth between regions", "Mbit/s"),
    ("latency.png", "rtt_ms", "configured_rtt_ms", "TCP round-trip latency between regions", "ms"),
)


@dataclass(frozen=True)
class LinksOptions:
    """The links part has one size: cluster.check decides how long it measures."""

    mode: str = "small"

    @classmethod
    def quick(cls) -> LinksOptions:
        return cls("quick")

    @classmethod
    def small(cls) -> LinksOptions:
        return cls("small")

    @classmethod
    def full(cls) -> LinksOptions:
        return cls("full")


def regions_of(pairs: list[dict[str, Any]]) -> list[str]:
    """The regions in the order the pairs first name them."""
    return list(dict.fromkeys(name for pair in pairs for name in (pair["from"], pair["to"])))


def _cell(value: float | None) -> str:
    """Three significant digits or so; a round trip within a region is a fraction of a millisecond."""
    if value is None:
        return "-"
    return "0" if value == 0 else f"{value:.2f}" if value < 1 else f"{value:.1f}" if value < 100 else f"{value:.0f}"


def heatmap_figure(pairs: list[dict[str, Any]], measured: str, configured: str, title: str, unit: str) -> Figure:
    """A region x region heatmap coloured by the measured value; each cell reads
    "measured / configured" (a pair not measured is blank)."""
    regions = regions_of(pairs)
    where = {name: index for index, name in enumerate(regions)}
    grid = numpy.full((len(regions), len(regions)), numpy.nan)
    texts = [["" for _ in regions] for _ in regions]
    for pair in pairs:
        row, column = where[pair["from"]], where[pair["to"]]
        if pair.get(measured) is not None:
            grid[row, column] = pair[measured]
        texts[row][column] = f"{_cell(pair.get(measured))} / {_cell(pair.get(configured))}"
    figure, axes = plt.subplots(figsize=(1.9 * len(regions) + 2.5, 1.5 * len(regions) + 1.5))
    image = axes.imshow(numpy.ma.masked_invalid(grid), cmap="viridis")
    figure.colorbar(image, ax=axes, label=f"measured {unit}")
    span = numpy.nanmax(grid) - numpy.nanmin(grid) if numpy.isfinite(grid).any() else 0.0
    for row, cells in enumerate(texts):
        for column, text in enumerate(cells):
            bright = numpy.isfinite(grid[row, column]) and grid[row, column] > numpy.nanmin(grid) + span / 2
            axes.text(column, row, text, ha="center", va="center", fontsize=8,
                      color="black" if bright else "white")
    axes.set_xticks(range(len(regions)), regions, rotation=20)
    axes.set_yticks(range(len(regions)), regions)
    axes.set_xlabel("to region")
    axes.set_ylabel("from region")
    axes.set_title(f"{title} ({unit}): measured / configured", fontsize=10)
    figure.tight_layout()
    return figure


def draw(measured: dict[str, Any], out_dir: str) -> list[str]:
    """Both heatmaps of `measured` (cluster.check's dict) into `out_dir`; their file names."""
    names = []
    for name, key, configured, title, unit in HEATMAPS:
        figure = heatmap_figure(measured["pairs"], key, configured, title, unit)
        figure.savefig(os.path.join(out_dir, name), dpi=110)
        plt.close(figure)
        names.append(name)
    return names


def run(cluster: ClusterState, stores: list[str], options: LinksOptions, out_dir: str, say: Say) -> dict[str, Any]:
    """Measure the cluster's links with cluster.check, write links.json and the heatmaps
    (`stores` is the study's, unused: the links are measured whatever the stores)."""
    with CpuWatch(cluster) as watch:
        # A disk per region is the calibration; --full measures every node's (16 of them took
        # 64 s of the default's budget, and every node's disk is made the same way).
        measured = check.measure(cluster, say, every_disk=options.mode == "full")
    window = watch.window
    assert window is not None
    report: dict[str, Any] = {**measured, "mode": options.mode, "cpu": window.as_dict(),
                              "headroom": {"threshold": window.threshold, "repeats": 1,
                                           "saturated": int(window.saturated), "by_store": {}}}
    os.makedirs(out_dir, exist_ok=True)
    report["figures"] = draw(measured, out_dir)
    with open(os.path.join(out_dir, "links.json"), "w") as handle:
        json.dump(report, handle, indent=1)
    verdict = "as configured" if measured["ok"] else "off: " + "; ".join(map(str, measured["failures"]))
    say(f"links: {len(measured['pairs'])} region pairs measured, {verdict}; "
        f"host {window.host_busy:.0%} busy{' (saturated)' if window.saturated else ''}")
    return report
