"""The statistics under the study's measures and claims: medians with seeded bootstrap
confidence intervals, ratios of medians, and a test of spreads (Brown-Forsythe).

Every bootstrap draws from a generator seeded with `SEED`, so a verdict is reproduced from
study.json's samples alone. A repeat during which the host CPU was saturated is left out
(`usable`): it measured the machine, not the store.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats as scipy_stats

LEVEL = 0.95
RESAMPLES = 10_000
SEED = 0
# Fewer repeats than this give no interval: a bootstrap of two values only restates them.
MIN_USABLE = 3


def usable(measure: dict[str, Any]) -> list[float]:
    """The samples of `measure` whose repeat was not saturated."""
    samples = measure.get("samples", [])
    saturated = measure.get("saturated") or [False] * len(samples)
    return [float(value) for value, hot in zip(samples, saturated, strict=True) if not hot]


def measure_of(samples: Sequence[float], saturated: Sequence[bool], busy: Sequence[float]) -> dict[str, Any]:
    """The record of one measured quantity: its samples in the order measured, which repeats
    were saturated and how busy the host was, and the median with its 95% CI of the usable ones."""
    if not len(samples) == len(saturated) == len(busy):
        raise ValueError(f"samples, saturated and busy differ in length ({len(samples)}, {len(saturated)}, "
                         f"{len(busy)})")
    measure: dict[str, Any] = {"samples": [float(v) for v in samples], "saturated": [bool(s) for s in saturated],
                               "busy": [float(b) for b in busy], "median": None, "ci95": None}
    values = usable(measure)
    if values:
        measure["median"] = float(np.median(values))
    if len(values) >= MIN_USABLE:
        _, low, high = median_ci(values)
        measure["ci95"] = [low, high]
    return measure


def medians_ci(groups: Sequence[Sequence[float]], statistic: Callable[..., Any], level: float = LEVEL,
               resamples: int = RESAMPLES, seed: int = SEED) -> tuple[float, float, float]:
    """`statistic` of the groups' medians, with a percentile bootstrap interval: each group is
    resampled on its own (they are independent repeats), and `statistic` gets one array of
    medians per group, one entry per resample (so it is written once, with array arithmetic)."""
    arrays = [np.asarray(group, dtype=float) for group in groups]
    if any(array.size == 0 for array in arrays):
        raise ValueError("every group needs at least one value")
    rng = np.random.default_rng(seed)
    boot = [np.median(array[rng.integers(0, array.size, size=(resamples, array.size))], axis=1)
            for array in arrays]
    point = float(statistic(*[np.median(array) for array in arrays]))
    low, high = np.quantile(np.asarray(statistic(*boot), dtype=float), [(1 - level) / 2, (1 + level) / 2])
    return point, float(low), float(high)


def median_ci(values: Sequence[float], level: float = LEVEL, resamples: int = RESAMPLES,
              seed: int = SEED) -> tuple[float, float, float]:
    """The median of `values` and its bootstrap confidence interval: (median, low, high)."""
    return medians_ci([values], lambda median: median, level, resamples, seed)


def ratio_ci(a: Sequence[float], b: Sequence[float], level: float = LEVEL, resamples: int = RESAMPLES,
             seed: int = SEED) -> tuple[float, float, float]:
    """median(a) / median(b) and the bootstrap interval of that ratio (a and b resampled apart)."""
    if float(np.median(np.asarray(b, dtype=float))) <= 0:
        raise ValueError("the ratio's denominator has a median of zero or less")
    return medians_ci([a, b], lambda top, bottom: top / bottom, level, resamples, seed)


@dataclass(frozen=True)
class Spread:
    """Brown-Forsythe's comparison of two samples' spreads."""

    ratio: float    # mean absolute deviation from the median: a's over b's
    p_value: float  # two-sided: the chance of spreads this far apart if both were equal


def spread_test(a: Sequence[float], b: Sequence[float]) -> Spread:
    """Levene's test centred on the medians (Brown-Forsythe: robust to skewed rates), with the
    direction read from the two mean absolute deviations."""
    first, second = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    deviation_a = float(np.mean(np.abs(first - np.median(first))))
    deviation_b = float(np.mean(np.abs(second - np.median(second))))
    if deviation_a == deviation_b == 0:
        return Spread(1.0, 1.0)
    ratio = deviation_a / deviation_b if deviation_b else float("inf")
    return Spread(ratio, float(scipy_stats.levene(first, second, center="median").pvalue))
