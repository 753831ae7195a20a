"""The study's claims as statistical tests fixed in advance, judged on what this run measured.

Each claim is judged case by case (a store, pattern and size; a workflow; a store pair) on
95% bootstrap intervals of medians or of their ratios (`study.stats`: 10,000 resamples,
seed 0, so study.json's samples reproduce every verdict). Only usable repeats count: a
repeat during which the host CPU was saturated measured the machine, not the store.

A case **holds** when its interval lies wholly on the claimed side, **differs** when it lies
wholly on the other side, is **inconclusive** when it straddles, and is **not testable**
when it cannot be judged, with the reason: data not measured, fewer than 3 repeats,
saturation left fewer than 3 usable, sizes outside the claim's range, the knee's efficiency
gate failed. A sized claim ("up to 30% sooner") that holds says whether the whole interval
lies beyond the size: it then holds "with a larger gain than claimed".

The claim's verdict, from its counted cases, by majority: it holds when more than half of
the judged cases (those not "not testable") hold, so more hold than differ; it differs when
more than half differ; otherwise it is inconclusive; not testable when no case could be
judged. The counts are always shown ("holds in 4 of 6 cases, inconclusive in 2"). Two claims
compare one store against all others and need all of them: "S3 is the most variable" and
"MosaStore is the best at read-after-write" (at each size) hold only against every rival and
differ as soon as one rival is significantly on the other side.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from study.stats import MIN_USABLE, medians_ci, ratio_ci, spread_test, usable

HOLDS, DIFFERS, INCONCLUSIVE, NOT_TESTABLE = "holds", "differs", "inconclusive", "not testable"
VERDICTS = (HOLDS, DIFFERS, INCONCLUSIVE, NOT_TESTABLE)
LARGER = "with a larger gain than claimed"
AGGREGATED = ("mosastore", "hdfs")  # node-local aggregated stores
OBJECT_STORE = "s3"
# Not S3's rivals for variability: the reference (node disks) and S3's own bucket through a mount.
NOT_RIVALS = ("local", "s3fs")
ALPHA = 0.05             # the spread test's significance level
MIN_POOLED = 10          # usable repeats per store, pooled over cases, for a test of spreads
LARGEST_MB = 1000        # "except at the largest sizes": the paper's 1000 MB, judged apart
CROSSOVER_MB = 500       # "read-after-write beyond 500 MB"
CLAIMED_GAIN = 0.30      # "up to 30% sooner"
GATE_EFFICIENCY = 0.70   # local's parallel efficiency within the home region, below which no knee can show
# A knee: parallel efficiency beyond the home region below this fraction of the one within it.
KNEE_RATIO = 0.75


@dataclass(frozen=True)
class Case:
    """One case of a claim: what it compared, the interval, and its verdict."""

    name: str
    verdict: str
    measured: str
    note: str = ""
    counted: bool = True  # False: reported beside the claim, outside its scope

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Claim:
    """A claim of the study, our verdict, and the cases it rests on."""

    key: str
    claim: str
    verdict: str
    measured: str
    cases: tuple[Case, ...] = ()

    @property
    def counts(self) -> dict[str, int]:
        found = Counter(case.verdict for case in self.cases if case.counted)
        return {verdict: found[verdict] for verdict in VERDICTS}

    @property
    def summary(self) -> str:
        """The counts in words, or why no case could be judged."""
        return tally(self.cases) if self.cases else self.measured

    def as_dict(self) -> dict[str, Any]:
        return {"key": self.key, "claim": self.claim, "verdict": self.verdict, "summary": self.summary,
                "measured": self.measured, "cases": [case.as_dict() for case in self.cases],
                "counts": self.counts}


def case_verdict(case: dict[str, Any]) -> str:
    """A case's verdict as the reports print it, with its note ("holds (with a larger gain ...)")."""
    return case["verdict"] + (f" ({case['note']})" if case.get("note") else "")


def majority(cases: Sequence[Case]) -> str:
    """The module's majority rule over the counted cases."""
    judged = [case.verdict for case in cases if case.counted and case.verdict != NOT_TESTABLE]
    if not judged:
        return NOT_TESTABLE
    for verdict in (HOLDS, DIFFERS):
        if 2 * judged.count(verdict) > len(judged):
            return verdict
    return INCONCLUSIVE


def tally(cases: Sequence[Case]) -> str:
    """The counts in words: "holds in 4 of 6 cases, inconclusive in 2"."""
    counted = [case.verdict for case in cases if case.counted]
    if not counted:
        return "not testable: no case inside the claim's range (the cases below are reported, not counted)"
    found = [f"{verdict} in {counted.count(verdict)}" for verdict in VERDICTS if verdict in counted]
    found[0] += f" of {len(counted)} case{'s' if len(counted) > 1 else ''}"
    return ", ".join(found)


def _claim(key: str, text: str, cases: Sequence[Case], verdict: str | None = None) -> Claim:
    listing = "; ".join(f"{case.name}: {case.measured} [{case.verdict}{', ' + case.note if case.note else ''}]"
                        for case in cases)
    return Claim(key, text, verdict or majority(cases), f"{tally(cases)}. {listing}", tuple(cases))


def _shortfall(label: str, measure: dict[str, Any] | None) -> str | None:
    """Why `measure` cannot be judged, or None when it can."""
    if measure is None:
        return f"{label}: not measured"
    total, kept = len(measure.get("samples", [])), len(usable(measure))
    if kept >= MIN_USABLE:
        return None
    if total >= MIN_USABLE:
        return f"{label}: saturation left {kept} of {total} repeats usable, fewer than {MIN_USABLE}"
    return f"{label}: {total} repeat{'s' if total != 1 else ''}, fewer than {MIN_USABLE}"


def _side(low: float, high: float, threshold: float, claimed_above: bool) -> str:
    if low > threshold:
        return HOLDS if claimed_above else DIFFERS
    if high < threshold:
        return DIFFERS if claimed_above else HOLDS
    return INCONCLUSIVE


def _ratio_case(name: str, labels: tuple[str, str], top: dict[str, Any] | None, bottom: dict[str, Any] | None,
                claimed_above: bool, counted: bool = True, note: str = "") -> Case:
    """A case judged on the ratio of two medians against 1."""
    missing = [why for why in (_shortfall(labels[0], top), _shortfall(labels[1], bottom)) if why]
    if missing or top is None or bottom is None:
        return Case(name, NOT_TESTABLE, "; ".join(missing), note, counted)
    ratio, low, high = ratio_ci(usable(top), usable(bottom))
    return Case(name, _side(low, high, 1.0, claimed_above),
                f"{labels[0]}/{labels[1]} {ratio:.2f}x (95% CI {low:.2f}x..{high:.2f}x)", note, counted)


def _parts(results: dict[str, Any], part: str) -> dict[str, Any]:
    return results.get("parts", {}).get(part, {})


def _io(results: dict[str, Any]) -> list[dict[str, Any]]:
    return _parts(results, "io").get("results", [])


def _stores(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The stores of `rows` in the order measured (the order the figures show them in)."""
    return list(dict.fromkeys(row["store"] for row in rows))


def variability(results: dict[str, Any]) -> Claim:
    text = "S3 is the most variable store (its I/O rates spread more over repeats than any node-local store's)."
    rows = _io(results)
    rivals = [store for store in _stores(rows) if store not in (OBJECT_STORE, *NOT_RIVALS)]
    if OBJECT_STORE not in _stores(rows) or not rivals:
        return Claim("variability", text, NOT_TESTABLE, "needs the io part with s3 and a node-local store")
    # Each usable sample over its case's median: rates of every pattern and size on one scale.
    relative: dict[str, list[float]] = {store: [] for store in _stores(rows)}
    for row in rows:
        values = usable(row)
        middle = statistics.median(values) if len(values) >= MIN_USABLE else 0.0
        if middle > 0:
            relative[row["store"]].extend(value / middle for value in values)
    ours = relative[OBJECT_STORE]
    if len(ours) < MIN_POOLED:
        return Claim("variability", text, NOT_TESTABLE,
                     f"s3: {len(ours)} usable repeats pooled over its cases, fewer than {MIN_POOLED}")
    cases = []
    for rival in rivals:
        theirs = relative[rival]
        if len(theirs) < MIN_POOLED:
            cases.append(Case(f"s3 vs {rival}", NOT_TESTABLE,
                              f"{rival}: {len(theirs)} usable repeats pooled, fewer than {MIN_POOLED}"))
            continue
        spread = spread_test(ours, theirs)
        verdict = INCONCLUSIVE if spread.p_value >= ALPHA else (HOLDS if spread.ratio > 1 else DIFFERS)
        cases.append(Case(f"s3 vs {rival}", verdict,
                          f"S3's spread {spread.ratio:.2f}x {rival}'s (Brown-Forsythe p = {spread.p_value:.3f}, "
                          f"{len(ours)} and {len(theirs)} repeats)"))
    verdicts = {case.verdict for case in cases}
    if DIFFERS in verdicts:
        verdict = DIFFERS
    elif verdicts == {HOLDS}:
        verdict = HOLDS
    else:
        verdict = NOT_TESTABLE if verdicts == {NOT_TESTABLE} else INCONCLUSIVE
    return _claim("variability", text, cases, verdict)


def _by_case(rows: Sequence[dict[str, Any]]) -> dict[tuple[str, str, int], dict[str, Any]]:
    return {(row["store"], row["pattern"], int(row["size_mb"])): row for row in rows}


def aggregated_faster(results: dict[str, Any]) -> Claim:
    text = ("Node-local aggregated stores (HDFS, MosaStore) read and write faster than S3, "
            "except at the largest sizes.")
    rows = _io(results)
    stores = [store for store in _stores(rows) if store in AGGREGATED]
    if OBJECT_STORE not in _stores(rows) or not stores:
        return Claim("aggregated_faster", text, NOT_TESTABLE, "needs the io part with s3 and mosastore or hdfs")
    table = _by_case(rows)
    sizes = sorted({int(row["size_mb"]) for row in rows})
    cases = []
    for store in stores:
        for pattern in ("read", "write"):
            for size in sizes:
                ours, theirs = table.get((store, pattern, size)), table.get((OBJECT_STORE, pattern, size))
                if ours is None and theirs is None:
                    continue
                inside = size < LARGEST_MB
                cases.append(_ratio_case(f"{store} {pattern} {size} MB", (store, OBJECT_STORE), ours, theirs, True,
                                         inside, "" if inside else "largest size: reported, not counted"))
    return _claim("aggregated_faster", text, cases)


def raw_crossover(results: dict[str, Any]) -> Claim:
    text = f"MosaStore is the fastest at read-after-write beyond {CROSSOVER_MB} MB."
    rows = [row for row in _io(results) if row["pattern"] == "read_after_write"]
    if "mosastore" not in _stores(rows):
        return Claim("raw_crossover", text, NOT_TESTABLE, "needs the io part with mosastore")
    sizes = sorted({int(row["size_mb"]) for row in rows})
    large = [size for size in sizes if size >= CROSSOVER_MB]
    if not large:
        return Claim("raw_crossover", text, NOT_TESTABLE,
                     f"sizes up to {max(sizes)} MB only, outside the claim's range (from {CROSSOVER_MB} MB)")
    table = _by_case(rows)
    cases = []
    for size in large:
        ours = table.get(("mosastore", "read_after_write", size))
        rivals = [store for store in _stores(rows) if store not in ("local", "mosastore")
                  and (store, "read_after_write", size) in table]
        against = [_ratio_case(rival, ("mosastore", rival), ours, table[(rival, "read_after_write", size)], True)
                   for rival in rivals]
        verdicts = {case.verdict for case in against}
        if not against:
            verdict, measured = NOT_TESTABLE, "no other store measured at this size"
        else:
            verdict = (DIFFERS if DIFFERS in verdicts else NOT_TESTABLE if NOT_TESTABLE in verdicts
                       else HOLDS if verdicts == {HOLDS} else INCONCLUSIVE)
            measured = ", ".join(f"{case.measured}: {case.verdict}" for case in against)
        cases.append(Case(f"{size} MB", verdict, measured))
    return _claim("raw_crossover", text, cases)


def _gain_case(name: str, mosastore: dict[str, Any] | None, s3: dict[str, Any] | None) -> Case:
    """1 - MosaStore's makespan over S3's, judged against 0 and the claimed 30%."""
    missing = [why for why in (_shortfall("mosastore", mosastore), _shortfall("s3", s3)) if why]
    if missing or mosastore is None or s3 is None:
        return Case(name, NOT_TESTABLE, "; ".join(missing))
    ours, theirs = usable(mosastore), usable(s3)
    ratio, low, high = ratio_ci(ours, theirs)
    gain, gain_low, gain_high = 1 - ratio, 1 - high, 1 - low
    verdict = _side(gain_low, gain_high, 0.0, claimed_above=True)
    note = LARGER if gain_low > CLAIMED_GAIN else ""
    return Case(name, verdict, f"gain {gain:.0%} (95% CI {gain_low:.0%}..{gain_high:.0%}; MosaStore "
                f"{statistics.median(ours):.1f} s, S3 {statistics.median(theirs):.1f} s)", note)


def _lmp_curves(results: dict[str, Any]) -> dict[str, dict[int, dict[str, Any]]]:
    curves: dict[str, dict[int, dict[str, Any]]] = {}
    for point in _parts(results, "lmp").get("points", []):
        curves.setdefault(point["store"], {})[int(point["nodes"])] = point
    return curves


def mosastore_sooner(results: dict[str, Any]) -> Claim:
    text = f"MosaStore finishes workflows up to {CLAIMED_GAIN:.0%} sooner than S3."
    cases = []
    for workflow, runs in _parts(results, "workflows").get("workflows", {}).items():
        if "mosastore" in runs or OBJECT_STORE in runs:
            cases.append(_gain_case(workflow, runs.get("mosastore"), runs.get(OBJECT_STORE)))
    curves = _lmp_curves(results)
    if "mosastore" in curves or OBJECT_STORE in curves:
        top = max(nodes for curve in curves.values() for nodes in curve)
        cases.append(_gain_case(f"LMP at {top} nodes", curves.get("mosastore", {}).get(top),
                                curves.get(OBJECT_STORE, {}).get(top)))
    if not cases:
        return Claim("mosastore_sooner", text, NOT_TESTABLE, "needs workflow runs or LMP points on mosastore and s3")
    return _claim("mosastore_sooner", text, cases)


def _efficiency(points: dict[int, dict[str, Any]], fewer: int, more: int) -> tuple[float, float, float]:
    """Parallel efficiency from `fewer` to `more` nodes: the speed-up over the ideal one, with its CI."""
    speedup, low, high = ratio_ci(usable(points[fewer]), usable(points[more]))
    scale = fewer / more
    return speedup * scale, low * scale, high * scale


def _knee_case(store: str, points: dict[int, dict[str, Any]], home: int) -> Case:
    fewest, most = min(points), max(points)
    if fewest >= home or most <= home or home not in points:
        return Case(store, NOT_TESTABLE, f"needs node counts below, at and above the home region's {home}")
    missing = [why for why in (_shortfall(f"{n} nodes", points[n]) for n in (fewest, home, most)) if why]
    if missing:
        return Case(store, NOT_TESTABLE, "; ".join(missing))
    within, beyond = _efficiency(points, fewest, home), _efficiency(points, home, most)

    # Both efficiencies share the home region's makespan, so their ratio is bootstrapped as one.
    def knee(first: Any, middle: Any, last: Any) -> Any:
        return (middle * home / (last * most)) / (first * fewest / (middle * home))

    ratio, low, high = medians_ci([usable(points[n]) for n in (fewest, home, most)], knee)
    return Case(store, _side(low, high, KNEE_RATIO, claimed_above=False),
                f"efficiency {within[0]:.0%} (95% CI {within[1]:.0%}..{within[2]:.0%}) from {fewest} to {home} "
                f"nodes, {beyond[0]:.0%} ({beyond[1]:.0%}..{beyond[2]:.0%}) from {home} to {most}; beyond over "
                f"within {ratio:.2f} (95% CI {low:.2f}..{high:.2f}), a knee below {KNEE_RATIO}")


def lmp_knee(results: dict[str, Any]) -> Claim:
    text = ("The power-grid workflow's makespan drops steeply with nodes up to where nodes come from "
            "remote regions, then flattens (a knee at the home region's size).")
    curves, home = _lmp_curves(results), _parts(results, "lmp").get("home_nodes")
    if not curves or not home:
        return Claim("lmp_knee", text, NOT_TESTABLE, "needs the lmp part")
    # The gate: with too few tasks per worker, even local disk scales poorly inside the home
    # region, and then no knee can show beyond it.
    local = curves.get("local", {})
    below = [nodes for nodes in local if nodes < home]
    if not below or home not in local:
        return Claim("lmp_knee", text, NOT_TESTABLE,
                     f"the efficiency gate needs the local store below and at the home region's {home} nodes")
    missing = [why for why in (_shortfall(f"local at {n} nodes", local[n]) for n in (min(below), home)) if why]
    if missing:
        return Claim("lmp_knee", text, NOT_TESTABLE, "; ".join(missing))
    gate, low, high = _efficiency(local, min(below), home)
    if gate < GATE_EFFICIENCY:
        return Claim("lmp_knee", text, NOT_TESTABLE,
                     f"efficiency gate failed: the local store's parallel efficiency from {min(below)} to {home} "
                     f"nodes is {gate:.0%} (95% CI {low:.0%}..{high:.0%}), below {GATE_EFFICIENCY:.0%}: too little "
                     f"work per worker for a knee to show")
    return _claim("lmp_knee", text, [_knee_case(store, points, home) for store, points in curves.items()])


def shared_beats_staged(results: dict[str, Any]) -> Claim:
    text = "Shared-store execution beats explicit staging (Swift/T over a shared store vs Swift/K staging)."
    pairs = _parts(results, "workflows").get("staged_vs_shared", {})
    cases = [_ratio_case(f"{store} staged vs {pair['shared_store']} shared", ("shared", "staged"),
                         pair.get("shared"), pair.get("staged"), claimed_above=False)
             for store, pair in pairs.items()]
    if not cases:
        return Claim("shared_beats_staged", text, NOT_TESTABLE, "needs the workflows part with s3, hdfs or chirp")
    return _claim("shared_beats_staged", text, cases)


CHECKS: tuple[Callable[[dict[str, Any]], Claim], ...] = (
    variability, aggregated_faster, raw_crossover, lmp_knee, mosastore_sooner, shared_beats_staged)


def evaluate(results: dict[str, Any]) -> list[Claim]:
    """Every claim of the study against `results` (study.json's content)."""
    return [check(results) for check in CHECKS]
