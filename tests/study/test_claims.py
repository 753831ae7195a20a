"""The study's claim checks on synthetic results in the contract's format: each verdict follows
from samples with known medians and spreads, and every check reaches each of its outcomes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from study import claims
from study.claims import DIFFERS, HOLDS, INCONCLUSIVE, NOT_TESTABLE
from study.index import claims_markdown, write
from study.stats import measure_of

# Five repeats spread evenly around the median: a width of 0.01 is a tight measure, 0.2 a loose one.
OFFSETS = (-2, -1, 0, 1, 2)


def measure(median: float, width: float = 0.01, saturated: tuple[bool, ...] = (), repeats: int = 5) -> dict[str, Any]:
    samples = [median * (1 + width * offset) for offset in OFFSETS[:repeats]]
    hot = list(saturated) or [False] * repeats
    return measure_of(samples, hot, [0.9 if flag else 0.5 for flag in hot])


def io_row(store: str, pattern: str, size: int, rate: dict[str, Any]) -> dict[str, Any]:
    return {"store": store, "pattern": pattern, "size_mb": size, "nodes": 8, **rate, "rounds": []}


def with_io(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"parts": {"io": {"results": rows}}}


def verdicts(claim: claims.Claim) -> list[str]:
    return [case.verdict for case in claim.cases]


# variability


def spreads(widths: dict[str, float], sizes: tuple[int, ...] = (1, 10, 30)) -> dict[str, Any]:
    return with_io([io_row(store, "read", size, measure(100.0 * size, width))
                    for store, width in widths.items() for size in sizes])


def test_s3_is_the_most_variable_when_its_spread_exceeds_every_node_local_store() -> None:
    claim = claims.variability(spreads({"s3": 0.2, "mosastore": 0.01, "hdfs": 0.02, "local": 0.5, "s3fs": 0.5}))
    assert claim.verdict == HOLDS and verdicts(claim) == [HOLDS, HOLDS]
    assert [case.name for case in claim.cases] == ["s3 vs mosastore", "s3 vs hdfs"]
    assert "S3's spread 20.00x mosastore's" in claim.measured and "15 and 15 repeats" in claim.measured


def test_variability_differs_when_a_store_is_significantly_more_variable_than_s3() -> None:
    claim = claims.variability(spreads({"s3": 0.01, "mosastore": 0.01, "hdfs": 0.2}))
    assert claim.verdict == DIFFERS and verdicts(claim) == [INCONCLUSIVE, DIFFERS]


def test_variability_is_inconclusive_when_the_spreads_are_alike() -> None:
    claim = claims.variability(spreads({"s3": 0.1, "mosastore": 0.1}))
    assert claim.verdict == INCONCLUSIVE and claim.summary == "inconclusive in 1 of 1 case"


def test_variability_needs_ten_usable_repeats_pooled_per_store() -> None:
    claim = claims.variability(spreads({"s3": 0.2, "mosastore": 0.01}, sizes=(1,)))
    assert claim.verdict == NOT_TESTABLE and "s3: 5 usable repeats pooled over its cases, fewer than 10" in claim.measured
    # Saturation: two cases of S3 keep two usable repeats each, so they drop out of the pool.
    results = spreads({"s3": 0.2, "mosastore": 0.01})
    for row in results["parts"]["io"]["results"][:2]:
        row.update(measure(row["median"], 0.2, saturated=(True, True, True, False, False)))
    assert "s3: 5 usable repeats" in claims.variability(results).measured
    rival = claims.variability(spreads({"s3": 0.2, "mosastore": 0.01, "hdfs": 0.01}, sizes=(1, 10)))
    assert rival.verdict == HOLDS  # ten repeats pooled suffice
    assert claims.variability(with_io([])).verdict == NOT_TESTABLE


# aggregated_faster


def rates(factors: dict[tuple[str, str, int], float], sizes: tuple[int, ...] = (1, 10)) -> list[dict[str, Any]]:
    """S3 at 100 MB/s everywhere; each other store at 100 x its factor (1 where not given), loose when 1."""
    rows = [io_row("s3", pattern, size, measure(100.0)) for pattern in ("read", "write") for size in sizes]
    for store in claims.AGGREGATED:
        for pattern in ("read", "write"):
            for size in sizes:
                factor = factors.get((store, pattern, size), 2.0)
                rows.append(io_row(store, pattern, size, measure(100.0 * factor, 0.01 if factor != 1 else 0.2)))
    return rows


def test_aggregated_stores_faster_in_every_case_hold_and_the_largest_size_is_reported_apart() -> None:
    rows = rates({}) + [io_row("s3", "read", 1000, measure(100.0)), io_row("mosastore", "read", 1000, measure(50.0))]
    claim = claims.aggregated_faster(with_io(rows))
    assert claim.verdict == HOLDS and claim.summary == "holds in 8 of 8 cases"
    largest = [case for case in claim.cases if not case.counted]
    assert [(case.name, case.verdict) for case in largest] == [
        ("mosastore read 1000 MB", DIFFERS), ("hdfs read 1000 MB", NOT_TESTABLE)]
    assert "hdfs: not measured" in largest[1].measured
    assert "mosastore/s3 2.00x (95% CI" in claim.measured


def test_aggregated_faster_differs_is_inconclusive_and_counts_by_majority() -> None:
    slower = {(store, pattern, size): 0.5 for store in claims.AGGREGATED for pattern in ("read", "write")
              for size in (1, 10)}
    assert claims.aggregated_faster(with_io(rates(slower))).verdict == DIFFERS
    # Half slower: 4 hold and 4 differ, no majority.
    half = {key: 0.5 for key in slower if key[0] == "hdfs"}
    claim = claims.aggregated_faster(with_io(rates(half)))
    assert claim.verdict == INCONCLUSIVE and claim.summary == "holds in 4 of 8 cases, differs in 4"
    # Five hold, three straddle (same median, loose): holds, a majority.
    alike = {("hdfs", "write", 1): 1.0, ("hdfs", "write", 10): 1.0, ("hdfs", "read", 10): 1.0}
    claim = claims.aggregated_faster(with_io(rates(alike)))
    assert claim.verdict == HOLDS and claim.summary == "holds in 5 of 8 cases, inconclusive in 3"
    # Four hold, four straddle: not more than half hold.
    alike[("hdfs", "read", 1)] = 1.0
    assert claims.aggregated_faster(with_io(rates(alike))).verdict == INCONCLUSIVE


def test_aggregated_faster_is_not_testable_at_the_largest_sizes_alone() -> None:
    rows = [io_row("s3", "read", 1000, measure(100.0)), io_row("hdfs", "read", 1000, measure(200.0))]
    claim = claims.aggregated_faster(with_io(rows))
    assert claim.verdict == NOT_TESTABLE and verdicts(claim) == [HOLDS] and claim.counts[HOLDS] == 0
    assert claim.summary.startswith("not testable: no case inside the claim's range")


def test_aggregated_faster_is_not_testable_without_three_usable_repeats() -> None:
    rows = [io_row("s3", "read", 1, measure(100.0, repeats=2)), io_row("mosastore", "read", 1, measure(200.0)),
            io_row("s3", "write", 1, measure(100.0, saturated=(True, True, True, False, False))),
            io_row("mosastore", "write", 1, measure(200.0))]
    claim = claims.aggregated_faster(with_io(rows))
    assert claim.verdict == NOT_TESTABLE and verdicts(claim) == [NOT_TESTABLE, NOT_TESTABLE]
    assert "s3: 2 repeats, fewer than 3" in claim.measured
    assert "s3: saturation left 2 of 5 repeats usable" in claim.measured
    assert claims.aggregated_faster(with_io([io_row("s3", "read", 1, measure(1.0))])).verdict == NOT_TESTABLE


# raw_crossover


def raw(rates_at: dict[str, float], size: int = 500, width: float = 0.01) -> list[dict[str, Any]]:
    return [io_row(store, "read_after_write", size, measure(rate, width)) for store, rate in rates_at.items()]


def test_raw_crossover_holds_when_mosastore_beats_every_store_but_local() -> None:
    claim = claims.raw_crossover(with_io(raw({"local": 900.0, "mosastore": 300.0, "s3": 200.0, "hdfs": 150.0})))
    assert claim.verdict == HOLDS and [case.name for case in claim.cases] == ["500 MB"]
    assert "mosastore/s3 1.50x" in claim.measured and "/local" not in claim.measured


def test_raw_crossover_differs_when_one_store_beats_mosastore_and_straddles_otherwise() -> None:
    rows = raw({"mosastore": 300.0, "s3": 200.0}) + raw({"mosastore": 300.0, "s3": 400.0}, size=1000)
    claim = claims.raw_crossover(with_io(rows))
    assert verdicts(claim) == [HOLDS, DIFFERS] and claim.verdict == INCONCLUSIVE
    assert claims.raw_crossover(with_io(raw({"mosastore": 300.0, "s3": 200.0, "hdfs": 400.0}))).verdict == DIFFERS
    assert claims.raw_crossover(with_io(raw({"mosastore": 300.0, "s3": 300.0}, width=0.2))).verdict == INCONCLUSIVE


def test_raw_crossover_is_not_testable_below_500_mb_or_without_usable_rivals() -> None:
    small = claims.raw_crossover(with_io(raw({"mosastore": 300.0, "s3": 200.0}, size=30)))
    assert small.verdict == NOT_TESTABLE and "sizes up to 30 MB only, outside the claim's range" in small.measured
    rows = raw({"mosastore": 300.0}) + [
        io_row("s3", "read_after_write", 500, measure(200.0, saturated=(True, True, True, True, False)))]
    hot = claims.raw_crossover(with_io(rows))
    assert hot.verdict == NOT_TESTABLE and "s3: saturation left 1 of 5 repeats usable" in hot.measured
    assert claims.raw_crossover(with_io(raw({"s3": 1.0}))).verdict == NOT_TESTABLE


# mosastore_sooner


def spans(mosastore: float, s3: float, width: float = 0.01) -> dict[str, Any]:
    return {"mosastore": {**measure(mosastore, width), "runs": []}, "s3": {**measure(s3, width), "runs": []}}


def lmp(curves: dict[str, dict[int, dict[str, Any]]], home: int = 8) -> dict[str, Any]:
    points = [{"store": store, "nodes": nodes, **point, "runs": []}
              for store, curve in curves.items() for nodes, point in curve.items()]
    return {"points": points, "home_nodes": home, "tasks": 320}


def test_mosastore_sooner_judges_each_workflow_against_zero_and_the_claimed_30_percent() -> None:
    results = {"parts": {"workflows": {"workflows": {"blast": spans(85.0, 100.0), "energyplus": spans(50.0, 100.0)}},
                         "lmp": lmp({"mosastore": {16: measure(100.0, 0.2)}, "s3": {16: measure(100.0, 0.2)}})}}
    claim = claims.mosastore_sooner(results)
    assert [(case.name, case.verdict, case.note) for case in claim.cases] == [
        ("blast", HOLDS, ""), ("energyplus", HOLDS, claims.LARGER), ("LMP at 16 nodes", INCONCLUSIVE, "")]
    assert claim.verdict == HOLDS and claim.summary == "holds in 2 of 3 cases, inconclusive in 1"
    blast = claim.cases[0].measured
    assert blast.startswith("gain 15% (95% CI 1") and "MosaStore 85.0 s, S3 100.0 s" in blast


def test_mosastore_sooner_differs_when_mosastore_is_slower() -> None:
    results = {"parts": {"workflows": {"workflows": {"blast": spans(120.0, 100.0), "energyplus": spans(80.0, 100.0),
                                                     "other": spans(130.0, 100.0)}}}}
    claim = claims.mosastore_sooner(results)
    assert verdicts(claim) == [DIFFERS, HOLDS, DIFFERS] and claim.verdict == DIFFERS


def test_mosastore_sooner_is_not_testable_without_both_stores() -> None:
    results = {"parts": {"workflows": {"workflows": {"blast": {"mosastore": {**measure(80.0), "runs": []}}}}}}
    claim = claims.mosastore_sooner(results)
    assert claim.verdict == NOT_TESTABLE and "s3: not measured" in claim.measured
    assert claims.mosastore_sooner({"parts": {}}).verdict == NOT_TESTABLE


# lmp_knee


def curve(at_2: float, at_8: float, at_16: float, width: float = 0.01) -> dict[int, dict[str, Any]]:
    return {2: measure(at_2, width), 8: measure(at_8, width), 16: measure(at_16, width)}


def test_a_knee_at_the_home_region_holds_and_linear_scaling_differs() -> None:
    # 2 -> 8 nodes: 4x faster (efficiency 100%); 8 -> 16: 100 -> 95 s (efficiency 53%, a ratio 0.53).
    knee = {"local": curve(400.0, 100.0, 95.0), "s3": curve(480.0, 120.0, 118.0),
            "mosastore": curve(800.0 / 2, 800.0 / 8, 800.0 / 16)}
    claim = claims.lmp_knee({"parts": {"lmp": lmp(knee)}})
    assert verdicts(claim) == [HOLDS, HOLDS, DIFFERS] and claim.verdict == HOLDS
    assert "efficiency 100% (95% CI" in claim.cases[0].measured and "beyond over within 0.53" in claim.cases[0].measured
    linear = {store: curve(800.0 / 2, 800.0 / 8, 800.0 / 16) for store in ("local", "s3")}
    assert claims.lmp_knee({"parts": {"lmp": lmp(linear)}}).verdict == DIFFERS


def test_a_knee_is_inconclusive_when_the_ratio_straddles_the_threshold() -> None:
    # Beyond over within = 0.75 at the medians, with loose makespans at 16 nodes.
    loose = {"local": {2: measure(400.0), 8: measure(100.0), 16: measure(200.0 / 3, 0.2)}}
    claim = claims.lmp_knee({"parts": {"lmp": lmp(loose)}})
    assert claim.verdict == INCONCLUSIVE and "beyond over within 0.75" in claim.measured


def test_the_knee_is_not_testable_when_local_scales_poorly_within_the_home_region() -> None:
    # 2 -> 8 nodes: 100 -> 60 s, an efficiency of 42%: too little work per worker.
    claim = claims.lmp_knee({"parts": {"lmp": lmp({"local": curve(100.0, 60.0, 55.0), "s3": curve(100.0, 60.0, 80.0)})}})
    assert claim.verdict == NOT_TESTABLE and not claim.cases
    assert "efficiency gate failed: the local store's parallel efficiency from 2 to 8 nodes is 42%" in claim.measured


def test_the_knee_is_not_testable_without_local_points_repeats_or_node_counts_beyond_home() -> None:
    assert "needs the local store" in claims.lmp_knee({"parts": {"lmp": lmp({"s3": curve(4.0, 1.0, 1.0)})}}).measured
    few = {"local": {2: measure(400.0, repeats=2), 8: measure(100.0)}}
    assert "local at 2 nodes: 2 repeats, fewer than 3" in claims.lmp_knee({"parts": {"lmp": lmp(few)}}).measured
    short = {"local": {2: measure(400.0), 8: measure(100.0)}}
    claim = claims.lmp_knee({"parts": {"lmp": lmp(short)}})
    assert claim.verdict == NOT_TESTABLE and "below, at and above the home region's 8" in claim.measured
    assert claims.lmp_knee({"parts": {}}).verdict == NOT_TESTABLE


# shared_beats_staged


def pair(shared: float, staged: float, width: float = 0.01, shared_store: str = "s3fs",
         saturated: tuple[bool, ...] = ()) -> dict[str, Any]:
    return {"staged": measure(staged, width), "shared": measure(shared, width, saturated), "shared_store": shared_store}


@pytest.mark.parametrize(("pairs", "expected", "summary"), [
    ({"s3": pair(80.0, 100.0), "hdfs": pair(90.0, 100.0, shared_store="hdfs")}, HOLDS, "holds in 2 of 2 cases"),
    ({"s3": pair(120.0, 100.0), "hdfs": pair(110.0, 100.0, shared_store="hdfs")}, DIFFERS, "differs in 2 of 2 cases"),
    ({"s3": pair(80.0, 100.0), "hdfs": pair(110.0, 100.0, shared_store="hdfs"),
      "chirp": pair(100.0, 100.0, 0.2, "chirp")}, INCONCLUSIVE, "holds in 1 of 3 cases, differs in 1, inconclusive in 1"),
    ({"s3": pair(80.0, 100.0, saturated=(True, True, True, False, False))}, NOT_TESTABLE, "not testable in 1 of 1 case"),
])
def test_shared_beats_staged_per_store_pair(pairs: dict[str, Any], expected: str, summary: str) -> None:
    claim = claims.shared_beats_staged({"parts": {"workflows": {"staged_vs_shared": pairs}}})
    assert claim.verdict == expected and claim.summary == summary
    assert claim.cases[0].name == "s3 staged vs s3fs shared"


# every claim, and how they are shown


def test_every_claim_is_not_testable_without_data_and_the_pages_list_every_case(tmp_path: Path) -> None:
    found = claims.evaluate({"parts": {}})
    assert [claim.verdict for claim in found] == [NOT_TESTABLE] * len(claims.CHECKS)
    results = {"parts": {"workflows": {"workflows": {"blast": spans(60.0, 100.0)},
                                       "staged_vs_shared": {"s3": pair(80.0, 100.0)}}}, "mode": "default"}
    results["claims"] = [claim.as_dict() for claim in claims.evaluate(results)]
    table = claims_markdown(results["claims"])
    assert table.count("\n### ") == len(claims.CHECKS)
    assert "| S3 is the most variable store" in table and "| **not testable** | needs the io part" in table
    assert "| blast | gain 40% (95% CI" in table and f"| holds ({claims.LARGER}) |" in table
    write(str(tmp_path), results)
    page = (tmp_path / "index.html").read_text()
    assert "<td>s3 staged vs s3fs shared</td><td>shared/staged 0.80x (95% CI" in page
    assert "<td class='not-testable'>not testable</td>" in page
    assert (tmp_path / "claims.md").read_text() == table
