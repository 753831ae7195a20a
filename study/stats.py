"""Medians with bootstrap confidence intervals: how the study summarizes repeated measurements.

A measured quantity is kept as a *measure*: every repeat's value in the order measured,
whether the host CPU was saturated during it (those repeats are left out of the median,
the interval and every verdict), the host's busy fraction, and the median with its 95%
percentile-bootstrap interval over the usable repeats. The bootstrap is seeded, so an
interval can be recomputed from study.json exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

LEVEL = 0.95
RESAMPLES = 10_000
SEED = 0
MIN_USABLE = 3  # fewer usable repeats give no interval


def median_ci(values: Sequence[float], level: float = LEVEL, resamples: int = RESAMPLES,
              seed: int = SEED) -> tuple[float, float, float]:
    """The median of `values` and the percentile-bootstrap interval of it."""
    data = numpy.asarray(values, dtype=float)
    if data.size == 0:
        raise ValueError("no values")
    rng = numpy.random.default_rng(seed)
    medians = numpy.median(rng.choice(data, size=(resamples, data.size), replace=True), axis=1)
    tail = (1 - level) / 2 * 100
    low, high = numpy.percentile(medians, [tail, 100 - tail])
    return float(numpy.median(data)), float(low), float(high)


def ratio_ci(numerator: Sequence[float], denominator: Sequence[float], level: float = LEVEL,
             resamples: int = RESAMPLES, seed: int = SEED) -> tuple[float, float, float]:
    """median(numerator) / median(denominator), with the bootstrap interval of that ratio
    (each side resampled on its own: the repeats of two stores are not paired)."""
    top, bottom = numpy.asarray(numerator, dtype=float), numpy.asarray(denominator, dtype=float)
    if top.size == 0 or bottom.size == 0:
        raise ValueError("no values")
    rng = numpy.random.default_rng(seed)
    tops = numpy.median(rng.choice(top, size=(resamples, top.size), replace=True), axis=1)
    bottoms = numpy.median(rng.choice(bottom, size=(resamples, bottom.size), replace=True), axis=1)
    ratios = tops / numpy.where(bottoms == 0, numpy.nan, bottoms)
    tail = (1 - level) / 2 * 100
    low, high = numpy.nanpercentile(ratios, [tail, 100 - tail])
    return float(numpy.median(top) / numpy.median(bottom)), float(low), float(high)


def measure_of(samples: Sequence[float], saturated: Sequence[bool] | None = None,
               busy: Sequence[float] | None = None) -> dict[str, Any]:
    """The measure record of one quantity (see the module docstring)."""
    flags = list(saturated) if saturated is not None else [False] * len(samples)
    record: dict[str, Any] = {"samples": [float(value) for value in samples], "saturated": flags,
                              "busy": [round(float(value), 3) for value in busy] if busy is not None else [],
                              "median": None, "ci95": None}
    good = usable(record)
    if good:
        record["median"] = float(numpy.median(good))
    if len(good) >= MIN_USABLE:
        _, low, high = median_ci(good)
        record["ci95"] = [low, high]
    return record


def usable(measure: dict[str, Any]) -> list[float]:
    """The samples of repeats during which the host was not saturated."""
    flags = measure.get("saturated") or [False] * len(measure["samples"])
    return [value for value, saturated in zip(measure["samples"], flags) if not saturated]
