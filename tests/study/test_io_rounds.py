"""The I/O part's bookkeeping without a cluster: the interleaved order of rounds, the measure
records built from them, the CPU headroom summary, the plan of sizes, and the figures drawn
from a synthetic report."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.collections import PathCollection
import pytest

from study.io import IoOptions, groups, headroom, measure_rounds, order, rows_of
from study.io_figures import draw, figure_names, pattern_figure
from study.io_node import PATTERNS
from study.stats import median_ci

PNG = b"\x89PNG\r\n\x1a\n"


class FakeRounds:
    """A measuring function that records the order of its calls and returns a chosen rate and
    saturation for each (store, repeat)."""

    def __init__(self, rates: dict[tuple[str, int], float], saturated: set[tuple[str, int]]) -> None:
        self.rates = rates
        self.saturated = saturated
        self.calls: list[tuple[int, str, str]] = []

    def __call__(self, store: str, pattern: str, repeat: int) -> dict[str, Any]:
        self.calls.append((repeat, store, pattern))
        hot = (store, repeat) in self.saturated
        return {"aggregate_mbps": self.rates[(store, repeat)],
                "cpu": {"saturated": hot, "host_busy": 0.97 if hot else 0.40, "threshold": 0.85}}


def test_every_store_is_measured_once_per_repeat_before_any_store_repeats() -> None:
    stores = ["local", "s3", "mosastore"]
    fake = FakeRounds({(s, r): 1.0 for s in stores for r in range(5)}, set())
    measure_rounds(stores, ("read", "write"), 5, fake)
    assert [(repeat, store) for repeat, store, _ in fake.calls][::2] == [(r, s) for r in range(5) for s in stores]
    assert fake.calls == order(stores, ("read", "write"), 5)
    assert fake.calls[:4] == [(0, "local", "read"), (0, "local", "write"), (0, "s3", "read"), (0, "s3", "write")]


def test_each_row_is_a_measure_of_its_rounds_with_saturated_repeats_left_out() -> None:
    stores = ["s3", "mosastore"]
    rates = {("s3", r): rate for r, rate in enumerate([100.0, 140.0, 90.0, 500.0, 120.0, 110.0])}
    rates |= {("mosastore", r): 50.0 + r for r in range(6)}
    fake = FakeRounds(rates, saturated={("s3", 3)})
    rows = rows_of(30, 4, measure_rounds(stores, ("read_after_write",), 6, fake))
    by_store = {row["store"]: row for row in rows}
    s3 = by_store["s3"]
    assert (s3["pattern"], s3["size_mb"], s3["nodes"]) == ("read_after_write", 30, 4)
    assert s3["samples"] == [100.0, 140.0, 90.0, 500.0, 120.0, 110.0]  # in the order measured
    assert s3["saturated"] == [False, False, False, True, False, False]
    assert s3["busy"] == [0.4, 0.4, 0.4, 0.97, 0.4, 0.4]
    usable = [100.0, 140.0, 90.0, 120.0, 110.0]
    assert s3["median"] == statistics.median(usable) == 110.0  # 500 (saturated) would have moved it
    assert s3["ci95"] == list(median_ci(usable)[1:])
    assert [summary["repeat"] for summary in s3["rounds"]] == list(range(6))
    assert by_store["mosastore"]["median"] == 52.5 and by_store["mosastore"]["saturated"] == [False] * 6


def test_the_headroom_counts_saturated_repeats_per_store() -> None:
    stores = ["local", "s3", "chirp"]
    fake = FakeRounds({(s, r): 1.0 for s in stores for r in range(5)},
                      saturated={("s3", 0), ("s3", 4), ("chirp", 2)})
    rows = rows_of(1, 4, measure_rounds(stores, ("read", "write"), 5, fake))
    summary = headroom(rows)
    # A saturated round of a store's repeat counts once per pattern measured in it.
    assert summary == {"threshold": 0.85, "repeats": 30, "saturated": 6,
                       "by_store": {"local": [0, 10], "s3": [4, 10], "chirp": [2, 10]}}


def test_the_default_tests_read_after_write_at_500_mb_with_five_repeats() -> None:
    small = IoOptions.small()
    plan = groups(small, home=8)
    assert small.repeats >= 5
    assert plan[-1] == (500, small.raw_nodes, ("read_after_write",))
    assert all(patterns == PATTERNS for size, _, patterns in plan if size < 500)
    assert [size for size, _, _ in groups(IoOptions.full(), home=8)] == [1, 10, 100, 500, 1000]
    assert {nodes for _, nodes, _ in groups(IoOptions.full(), home=8)} == {8}
    assert groups(IoOptions.quick(), home=3) == [(1, 3, PATTERNS)]


def _report() -> dict[str, Any]:
    stores = ["s3", "mosastore"]
    rows = []
    for size, nodes, patterns in [(1, 4, PATTERNS), (10, 4, PATTERNS), (500, 2, ("read_after_write",))]:
        fake = FakeRounds({(s, r): size * (2 + r + (s == "s3")) for s in stores for r in range(5)},
                          saturated={("s3", 1)})
        rows += rows_of(size, nodes, measure_rounds(stores, patterns, 5, fake))
    return {"parameters": {"stores": stores, "patterns": list(PATTERNS), "nodes": ["node1", "node2", "node3", "node4"],
                           "repeats": 5, "saturated_above": 0.85}, "results": rows}


def test_the_figures_draw_intervals_and_saturated_repeats_hollow(tmp_path: Path) -> None:
    report = _report()
    paths = draw(report, str(tmp_path))
    assert [Path(path).name for path in paths] == figure_names(PATTERNS)
    for path in paths:
        assert Path(path).read_bytes().startswith(PNG)
    figure = pattern_figure(report, "read_after_write")
    axes = figure.axes[0]
    assert "median and 95% interval of 5 repeats" in axes.get_title()
    labels = [text.get_text() for text in axes.get_legend().get_texts()]
    assert labels[:2] == ["s3", "mosastore"]
    assert any("saturated" in label for label in labels) and "squares: 2 nodes at once" in labels
    # One s3 repeat per size was saturated: exactly those dots are hollow.
    hollow = [point for collection in axes.collections if isinstance(collection, PathCollection)
              and len(collection.get_facecolors()) == 0 for point in collection.get_offsets()]
    assert sorted(float(x) for x, _ in hollow) == [1.0, 10.0, 500.0]
    plt.close(figure)


@pytest.mark.parametrize("pattern", PATTERNS)
def test_a_store_with_every_repeat_saturated_has_no_median_but_its_dots(pattern: str, tmp_path: Path) -> None:
    stores = ["s3"]
    fake = FakeRounds({("s3", r): 10.0 + r for r in range(3)}, saturated={("s3", r) for r in range(3)})
    rows = rows_of(1, 2, measure_rounds(stores, PATTERNS, 3, fake))
    assert all(row["median"] is None and row["ci95"] is None for row in rows)
    report = {"parameters": {"stores": stores, "patterns": list(PATTERNS), "nodes": ["node1", "node2"],
                             "repeats": 3}, "results": rows}
    figure = pattern_figure(report, pattern)
    assert sum(len(c.get_offsets()) for c in figure.axes[0].collections
               if isinstance(c, PathCollection) and len(c.get_facecolors()) == 0) == 3
    plt.close(figure)
