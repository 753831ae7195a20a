"""The links part's heatmaps (the paper's Figs 1-2) drawn from a synthetic cluster.check
result, and its clear failure where cluster/check.py is missing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import pytest

from study.links import HEATMAPS, LinksOptions, draw, heatmap_figure, run

PNG = b"\x89PNG\r\n\x1a\n"
REGIONS = ["zone-a", "region-b", "continent-c"]
CONFIGURED = {("zone-a", "zone-a"): (0.2, 400), ("zone-a", "region-b"): (60, 200),
              ("zone-a", "continent-c"): (150, 100), ("region-b", "region-b"): (0.2, 400),
              ("region-b", "continent-c"): (210, 100), ("continent-c", "continent-c"): (0.2, 400)}


def measured() -> dict[str, Any]:
    """What cluster.check.measure returns (its contract): every ordered pair a little off its
    configuration, and one pair (region-b -> zone-a) that could not be measured."""
    pairs = []
    for source in REGIONS:
        for target in REGIONS:
            rtt, mbit = CONFIGURED.get((source, target)) or CONFIGURED[(target, source)]
            missing = (source, target) == ("region-b", "zone-a")
            pairs.append({"from": source, "to": target, "configured_rtt_ms": rtt,
                          "rtt_ms": None if missing else rtt * 1.02 + 0.1, "configured_mbit": mbit,
                          "mbit": None if missing else mbit * 0.98})
    return {"links": [], "pairs": pairs, "disks": [], "s3": [], "ok": False,
            "failures": ["region-b -> zone-a: no answer"]}


def test_both_heatmaps_are_written(tmp_path: Path) -> None:
    names = draw(measured(), str(tmp_path))
    assert names == ["bandwidth.png", "latency.png"]
    for name in names:
        assert (tmp_path / name).read_bytes().startswith(PNG)


@pytest.mark.parametrize("name, key, configured, title, unit", HEATMAPS)
def test_each_cell_reads_measured_over_configured(name: str, key: str, configured: str, title: str,
                                                  unit: str) -> None:
    data = measured()
    figure = heatmap_figure(data["pairs"], key, configured, title, unit)
    axes = figure.axes[0]
    assert axes.get_title() == f"{title} ({unit}): measured / configured"
    assert [label.get_text() for label in axes.get_xticklabels()] == REGIONS
    assert [label.get_text() for label in axes.get_yticklabels()] == REGIONS
    assert axes.get_xlabel() == "to region" and axes.get_ylabel() == "from region"
    cells = {(round(text.get_position()[1]), round(text.get_position()[0])): text.get_text() for text in axes.texts}
    if key == "mbit":
        assert cells[(0, 1)] == "196 / 200"  # zone-a -> region-b: 200 x 0.98, configured 200
        assert cells[(2, 2)] == "392 / 400"
    else:
        assert cells[(0, 1)] == "61.3 / 60.0"
        assert cells[(0, 0)] == "0.30 / 0.20"
    unmeasured = next(pair for pair in data["pairs"] if pair["from"] == "region-b" and pair["to"] == "zone-a")
    assert unmeasured[key] is None and cells[(1, 0)].startswith("- / ")
    plt.close(figure)
