"""The study's statistics against known answers: interval coverage on normal data, ratios,
Brown-Forsythe against its definition, and the measure record's saturation rule."""

from __future__ import annotations

import statistics

import numpy as np
import pytest
from scipy import stats as scipy_stats

from study.stats import measure_of, median_ci, ratio_ci, spread_test, usable


def test_the_median_interval_covers_the_true_median_about_95_times_in_100() -> None:
    trials, covered = 400, 0
    for seed in range(trials):
        values = np.random.default_rng(1000 + seed).normal(10.0, 2.0, 25)
        median, low, high = median_ci(values, resamples=2000, seed=seed)
        assert median == pytest.approx(statistics.median(values)) and low <= median <= high
        covered += low <= 10.0 <= high
    assert 0.91 <= covered / trials <= 0.99


def test_a_constant_sample_has_an_interval_of_zero_width() -> None:
    assert median_ci([4.0] * 6) == (4.0, 4.0, 4.0)


def test_the_same_seed_gives_the_same_interval_and_another_seed_may_not() -> None:
    values = [3.0, 7.0, 1.0, 9.0, 4.0, 6.0, 2.0]
    assert median_ci(values, seed=5) == median_ci(values, seed=5)
    assert ratio_ci(values, values[::-1], seed=5) == ratio_ci(values, values[::-1], seed=5)


def test_the_ratio_of_identical_samples_is_one_and_its_interval_contains_one() -> None:
    values = [98.0, 101.0, 100.0, 103.0, 99.0]
    ratio, low, high = ratio_ci(values, list(values))
    assert ratio == 1.0 and low < 1.0 < high


def test_the_ratio_of_a_sample_twice_another_is_two() -> None:
    base = [10.0, 11.0, 9.5, 10.5, 10.2]
    ratio, low, high = ratio_ci([2 * value for value in base], base)
    assert ratio == pytest.approx(2.0) and low < 2.0 < high and high / low < 1.3


def test_a_ratio_over_a_zero_median_is_refused() -> None:
    with pytest.raises(ValueError, match="denominator"):
        ratio_ci([1.0, 2.0], [0.0, 0.0, 1.0])


def test_brown_forsythe_rejects_very_different_spreads_and_matches_its_definition() -> None:
    rng = np.random.default_rng(7)
    wide, narrow = rng.normal(100, 30, 15), rng.normal(100, 2, 15)
    spread = spread_test(wide, narrow)
    assert spread.ratio > 5 and spread.p_value < 0.001
    # Its definition: a two-sided t-test of the absolute deviations from each sample's median.
    reference = scipy_stats.ttest_ind(np.abs(wide - np.median(wide)), np.abs(narrow - np.median(narrow)))
    assert spread.p_value == pytest.approx(reference.pvalue)
    assert spread_test(narrow, wide).ratio == pytest.approx(1 / spread.ratio)


def test_equal_spreads_are_not_told_apart() -> None:
    values = [90.0, 95.0, 100.0, 105.0, 110.0]
    spread = spread_test(values, [value + 50 for value in values])
    assert spread.ratio == pytest.approx(1.0) and spread.p_value > 0.9


def test_a_measure_leaves_its_saturated_repeats_out() -> None:
    measure = measure_of([10.0, 500.0, 11.0, 12.0, 13.0], [False, True, False, False, False],
                         [0.4, 0.97, 0.5, 0.4, 0.6])
    assert usable(measure) == [10.0, 11.0, 12.0, 13.0]
    assert measure["median"] == 11.5 and measure["ci95"] == list(median_ci([10.0, 11.0, 12.0, 13.0])[1:])
    few = measure_of([10.0, 11.0, 12.0], [False, True, False], [0.5, 0.9, 0.5])
    assert few["median"] == 11.0 and few["ci95"] is None
    with pytest.raises(ValueError, match="differ in length"):
        measure_of([1.0, 2.0], [False], [0.1, 0.2])
