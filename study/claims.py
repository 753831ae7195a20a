"""The study's claims, each checked against what this run measured: holds / differs / not measured.

Each check reads the parts' results (study.json) and says in one line what it compared, so a
reader can follow the verdict without opening the figures. A claim whose data was not
measured in this run (a store or part left out, sizes below the claim's range) says so.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

HOLDS, DIFFERS, PARTLY, NOT_MEASURED = "holds", "differs", "partly", "not measured"
AGGREGATED = ("mosastore", "hdfs")  # node-local aggregated stores
OBJECT_STORE = "s3"
# Beyond the home region, parallel efficiency below this fraction of the home region's is a knee.
KNEE_RATIO = 0.75


@dataclass(frozen=True)
class Claim:
    """A claim of the study and our verdict."""

    key: str
    claim: str
    verdict: str
    measured: str

    def as_dict(self) -> dict[str, str]:
        return {"key": self.key, "claim": self.claim, "verdict": self.verdict, "measured": self.measured}


def _io(results: dict[str, Any]) -> list[dict[str, Any]]:
    return results.get("parts", {}).get("io", {}).get("results", [])


def _median(rows: list[dict[str, Any]], store: str, pattern: str, size: int) -> float | None:
    for row in rows:
        if row["store"] == store and row["pattern"] == pattern and row["size_mb"] == size:
            return float(row["median"])
    return None


def variability(results: dict[str, Any]) -> Claim:
    text = "S3 is the most variable store (widest spread over repeats)."
    rows = _io(results)
    stores = sorted({row["store"] for row in rows} - {"local"})
    if OBJECT_STORE not in stores or len(stores) < 2:
        return Claim("variability", text, NOT_MEASURED, "needs the io part with s3 and another store")
    # The relative spread (max - min) / median, averaged over patterns and sizes, per store.
    spread = {store: statistics.fmean((row["max"] - row["min"]) / row["median"] for row in rows
                                      if row["store"] == store and row["median"] > 0) for store in stores}
    ranked = sorted(spread, key=spread.get, reverse=True)
    listed = ", ".join(f"{store} {spread[store]:.0%}" for store in ranked)
    object_stores = {OBJECT_STORE, "s3fs"}
    verdict = HOLDS if ranked[0] in object_stores else (PARTLY if ranked[1] in object_stores else DIFFERS)
    return Claim("variability", text, verdict, f"mean (max-min)/median of the aggregate rate over repeats: {listed}")


def aggregated_faster(results: dict[str, Any]) -> Claim:
    text = ("Node-local aggregated stores (HDFS, MosaStore) read and write faster than S3, "
            "except at the largest sizes.")
    rows = _io(results)
    sizes = sorted({row["size_mb"] for row in rows})
    compared, wins, details = 0, 0, []
    for store in AGGREGATED:
        for pattern in ("read", "write"):
            won = []
            for size in sizes:
                ours, theirs = _median(rows, store, pattern, size), _median(rows, OBJECT_STORE, pattern, size)
                if ours is None or theirs is None:
                    continue
                compared += 1
                wins += ours > theirs
                won.append(f"{size} MB {ours / theirs:.2f}x")
            if won:
                details.append(f"{store} {pattern}: " + ", ".join(won))
    if not compared:
        return Claim("aggregated_faster", text, NOT_MEASURED, "needs the io part with s3 and mosastore or hdfs")
    verdict = HOLDS if wins == compared else (PARTLY if wins * 2 >= compared else DIFFERS)
    return Claim("aggregated_faster", text, verdict,
                 f"faster than S3 in {wins} of {compared} (store, pattern, size) cases; " + "; ".join(details))


def raw_crossover(results: dict[str, Any]) -> Claim:
    text = "MosaStore is the fastest at read-after-write beyond 500 MB."
    rows = [row for row in _io(results) if row["pattern"] == "read_after_write"]
    sizes = sorted({row["size_mb"] for row in rows})
    best = {}
    for size in sizes:
        at = [row for row in rows if row["size_mb"] == size and row["store"] != "local"]
        if at:
            best[size] = max(at, key=lambda row: row["median"])["store"]
    if "mosastore" not in {row["store"] for row in rows}:
        return Claim("raw_crossover", text, NOT_MEASURED, "needs the io part with mosastore")
    order = ", ".join(f"{size} MB: {store}" for size, store in best.items())
    # The crossover: the smallest size from which MosaStore stays the fastest.
    crossover = next((size for size in sizes if all(best[s] == "mosastore" for s in sizes if s >= size)), None)
    where = f"MosaStore fastest from {crossover} MB on" if crossover else "MosaStore not fastest at the largest size"
    large = [size for size in sizes if size >= 500]
    if not large:
        return Claim("raw_crossover", text, NOT_MEASURED,
                     f"sizes up to {max(sizes)} MB only (run with --full for 500 and 1000 MB); fastest store "
                     f"per size: {order}; {where}")
    verdict = HOLDS if all(best[size] == "mosastore" for size in large) else DIFFERS
    return Claim("raw_crossover", text, verdict, f"fastest store per size: {order}; {where}")


def _makespans(results: dict[str, Any], workflow: str) -> dict[str, float]:
    runs = results.get("parts", {}).get("workflows", {}).get("workflows", {}).get(workflow, {})
    return {store: run["summary"]["makespan_s"] for store, run in runs.items() if run.get("error") is None}


def mosastore_sooner(results: dict[str, Any]) -> Claim:
    text = "MosaStore finishes workflows up to 30% sooner than S3."
    details, gains = [], []
    for workflow in ("blast", "energyplus"):
        spans = _makespans(results, workflow)
        if "mosastore" in spans and OBJECT_STORE in spans:
            gain = 1 - spans["mosastore"] / spans[OBJECT_STORE]
            gains.append(gain)
            details.append(f"{workflow}: MosaStore {spans['mosastore']:.1f} s vs S3 {spans[OBJECT_STORE]:.1f} s "
                           f"({gain:+.0%} sooner)")
    lmp = _lmp_points(results)
    if lmp:
        top = max(nodes for _, nodes, _ in lmp)
        at_top = {store: span for store, nodes, span in lmp if nodes == top}
        if "mosastore" in at_top and OBJECT_STORE in at_top:
            gain = 1 - at_top["mosastore"] / at_top[OBJECT_STORE]
            gains.append(gain)
            details.append(f"LMP at {top} nodes: {at_top['mosastore']:.1f} s vs {at_top[OBJECT_STORE]:.1f} s "
                           f"({gain:+.0%})")
    if not gains:
        return Claim("mosastore_sooner", text, NOT_MEASURED, "needs workflow runs on mosastore and s3")
    verdict = HOLDS if all(gain > 0 for gain in gains) else (PARTLY if any(gain > 0 for gain in gains) else DIFFERS)
    return Claim("mosastore_sooner", text, verdict, "; ".join(details))


def _lmp_points(results: dict[str, Any]) -> list[tuple[str, int, float]]:
    points = results.get("parts", {}).get("lmp", {}).get("points", [])
    return [(p["store"], int(p["nodes"]), float(p["makespan_s"])) for p in points if p.get("makespan_s") is not None]


def lmp_knee(results: dict[str, Any]) -> Claim:
    text = ("The power-grid workflow's makespan drops steeply with nodes up to where nodes come from "
            "remote regions, then flattens; worst on S3.")
    points = _lmp_points(results)
    home = results.get("parts", {}).get("lmp", {}).get("home_nodes")
    if not points or not home:
        return Claim("lmp_knee", text, NOT_MEASURED, "needs the lmp part")
    details, steep_then_flat = [], 0
    stores = sorted({store for store, _, _ in points})
    for store in stores:
        curve = sorted((nodes, span) for s, nodes, span in points if s == store)
        inside = [(n, m) for n, m in curve if n <= home]
        beyond = [(n, m) for n, m in curve if n >= home]
        if len(inside) < 2 or len(beyond) < 2:
            continue
        # Parallel efficiency (speed-up over the ideal one) inside the home region and beyond it:
        # a knee is efficiency that falls once nodes come from remote regions.
        within = (inside[0][1] / inside[-1][1]) / (inside[-1][0] / inside[0][0])
        past = (beyond[0][1] / beyond[-1][1]) / (beyond[-1][0] / beyond[0][0])
        steep_then_flat += past < KNEE_RATIO * within
        details.append(f"{store}: {inside[0][1]:.0f} s at {inside[0][0]} nodes, {inside[-1][1]:.0f} s at "
                       f"{home}, {beyond[-1][1]:.0f} s at {beyond[-1][0]} (efficiency {within:.0%} within the "
                       f"home region, {past:.0%} beyond)")
    if not details:
        return Claim("lmp_knee", text, NOT_MEASURED, "needs node counts on both sides of the home region's size")
    top = max(nodes for _, nodes, _ in points)
    at_top = {store: span for store, nodes, span in points if nodes == top}
    worst = max(at_top, key=at_top.get)
    verdict = HOLDS if steep_then_flat == len(details) and worst in (OBJECT_STORE, "s3fs") else (
        PARTLY if steep_then_flat else DIFFERS)
    return Claim("lmp_knee", text, verdict, f"knee at {home} nodes (the home region) in {steep_then_flat} of "
                 f"{len(details)} stores; worst at {top} nodes: {worst}; " + "; ".join(details))


def shared_beats_staged(results: dict[str, Any]) -> Claim:
    text = "Shared-store execution beats explicit staging (Swift/T over a shared store vs Swift/K staging)."
    pairs = results.get("parts", {}).get("workflows", {}).get("staged_vs_shared", {})
    details, wins, compared = [], 0, 0
    for store, pair in pairs.items():
        if pair["staged"].get("error") or pair["shared"].get("error"):
            continue
        staged, shared = pair["staged"]["summary"]["makespan_s"], pair["shared"]["summary"]["makespan_s"]
        compared += 1
        wins += shared < staged
        details.append(f"{store}: staged {staged:.1f} s, shared ({pair['shared_store']}) {shared:.1f} s")
    if not compared:
        return Claim("shared_beats_staged", text, NOT_MEASURED, "needs the workflows part with s3, hdfs or chirp")
    verdict = HOLDS if wins == compared else (PARTLY if wins else DIFFERS)
    return Claim("shared_beats_staged", text, verdict, "BLAST makespan: " + "; ".join(details))


CHECKS: tuple[Callable[[dict[str, Any]], Claim], ...] = (
    variability, aggregated_faster, raw_crossover, lmp_knee, mosastore_sooner, shared_beats_staged)


def evaluate(results: dict[str, Any]) -> list[Claim]:
    """Every claim of the study against `results` (study.json's content)."""
    return [check(results) for check in CHECKS]
