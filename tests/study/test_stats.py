"""Bootstrap medians and ratios: known answers on synthetic samples."""

from __future__ import annotations

import random

import pytest

from study.stats import measure_of, median_ci, ratio_ci, usable


def test_the_interval_holds_the_median_and_covers_about_95_percent() -> None:
    hits, trials = 0, 200
    for seed in range(trials):
        draw = random.Random(seed)
        sample = [draw.gauss(10.0, 1.0) for _ in range(15)]
        median, low, high = median_ci(sample, resamples=2000, seed=seed)
        assert low <= median <= high
        hits += low <= 10.0 <= high
    assert 0.88 <= hits / trials <= 0.995  # the percentile bootstrap of a median is close to nominal


def test_ratio_of_identical_samples_straddles_one_and_of_doubled_lies_at_two() -> None:
    base = [9.0, 10.0, 11.0, 10.5, 9.5, 10.2]
    ratio, low, high = ratio_ci(base, base)
    assert ratio == 1.0 and low < 1.0 < high
    ratio, low, high = ratio_ci([2 * value for value in base], base)
    assert ratio == pytest.approx(2.0) and 1.5 < low <= 2.0 <= high < 2.7


def test_saturated_repeats_are_left_out() -> None:
    record = measure_of([10.0, 11.0, 99.0, 12.0], [False, False, True, False], [0.5, 0.6, 0.95, 0.4])
    assert usable(record) == [10.0, 11.0, 12.0]
    assert record["median"] == 11.0 and record["ci95"][0] >= 10.0 and record["ci95"][1] <= 12.0
    assert record["busy"] == [0.5, 0.6, 0.95, 0.4]


def test_too_few_usable_repeats_give_no_interval() -> None:
    record = measure_of([10.0, 11.0, 12.0], [False, True, True])
    assert record["median"] == 10.0 and record["ci95"] is None
    assert measure_of([])["median"] is None
