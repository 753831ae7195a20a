"""The study's claim checks on hand-made results: each verdict follows from the numbers given."""

from __future__ import annotations

from typing import Any

from study import claims
from study.index import claims_markdown


def io_row(store: str, pattern: str, size: int, median: float, low: float, high: float) -> dict[str, Any]:
    return {"store": store, "pattern": pattern, "size_mb": size, "median": median, "min": low, "max": high}


def with_io(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"parts": {"io": {"results": rows}}}


def test_variability_holds_when_s3_spreads_most_and_differs_when_it_does_not() -> None:
    rows = [io_row("s3", "read", 1, 100, 50, 150), io_row("mosastore", "read", 1, 100, 95, 105),
            io_row("hdfs", "read", 1, 100, 90, 110), io_row("local", "read", 1, 100, 0, 900)]
    verdict = claims.variability(with_io(rows))
    assert verdict.verdict == claims.HOLDS
    assert verdict.measured.startswith("mean (max-min)/median") and "s3 100%" in verdict.measured
    rows[0] = io_row("s3", "read", 1, 100, 99, 101)
    assert claims.variability(with_io(rows)).verdict == claims.DIFFERS


def test_aggregated_faster_counts_every_store_pattern_and_size() -> None:
    rows = [io_row(store, pattern, size, rate, rate, rate)
            for store, rate in (("s3", 100.0), ("mosastore", 200.0), ("hdfs", 150.0))
            for pattern in ("read", "write") for size in (1, 10)]
    assert claims.aggregated_faster(with_io(rows)).verdict == claims.HOLDS
    rows.append(io_row("s3", "read", 100, 300, 300, 300))
    rows.append(io_row("mosastore", "read", 100, 250, 250, 250))
    verdict = claims.aggregated_faster(with_io(rows))
    assert verdict.verdict == claims.PARTLY and "8 of 9" in verdict.measured


def test_read_after_write_crossover_needs_the_large_sizes() -> None:
    rows = [io_row("mosastore", "read_after_write", size, rate, rate, rate)
            for size, rate in ((10, 50), (100, 300))] + \
           [io_row("s3", "read_after_write", size, rate, rate, rate) for size, rate in ((10, 80), (100, 200))]
    small = claims.raw_crossover(with_io(rows))
    assert small.verdict == claims.NOT_MEASURED and "MosaStore fastest from 100 MB on" in small.measured
    rows += [io_row("mosastore", "read_after_write", 1000, 400, 400, 400),
             io_row("s3", "read_after_write", 1000, 500, 500, 500)]
    assert claims.raw_crossover(with_io(rows)).verdict == claims.DIFFERS


def run(makespan: float) -> dict[str, Any]:
    return {"summary": {"makespan_s": makespan}, "error": None}


def test_mosastore_sooner_and_shared_beats_staged() -> None:
    results = {"parts": {"workflows": {
        "workflows": {"blast": {"s3": run(100.0), "mosastore": run(75.0)},
                      "energyplus": {"s3": run(50.0), "mosastore": run(55.0)}},
        "staged_vs_shared": {"hdfs": {"staged": run(90.0), "shared": run(60.0), "shared_store": "hdfs"},
                             "s3": {"staged": run(100.0), "shared": run(120.0), "shared_store": "s3fs"}}}}}
    sooner = claims.mosastore_sooner(results)
    assert sooner.verdict == claims.PARTLY and "+25% sooner" in sooner.measured and "-10% sooner" in sooner.measured
    shared = claims.shared_beats_staged(results)
    assert shared.verdict == claims.PARTLY
    assert "hdfs: staged 90.0 s, shared (hdfs) 60.0 s" in shared.measured


def test_lmp_knee_at_the_home_region() -> None:
    points = [{"store": store, "nodes": nodes, "makespan_s": span * factor}
              for store, factor in (("s3", 1.2), ("mosastore", 1.0))
              for nodes, span in ((2, 400.0), (4, 200.0), (8, 100.0), (12, 95.0), (16, 92.0))]
    results = {"parts": {"lmp": {"points": points, "home_nodes": 8}}}
    knee = claims.lmp_knee(results)
    assert knee.verdict == claims.HOLDS, knee.measured
    assert "worst at 16 nodes: s3" in knee.measured
    linear = [{**point, "makespan_s": 800.0 / point["nodes"]} for point in points]
    assert claims.lmp_knee({"parts": {"lmp": {"points": linear, "home_nodes": 8}}}).verdict == claims.DIFFERS


def test_every_claim_says_not_measured_without_data_and_the_table_lists_them() -> None:
    found = claims.evaluate({"parts": {}})
    assert [claim.verdict for claim in found] == [claims.NOT_MEASURED] * len(claims.CHECKS)
    table = claims_markdown([claim.as_dict() for claim in found])
    assert table.count("\n") == len(claims.CHECKS) + 2 and "S3 is the most variable" in table
