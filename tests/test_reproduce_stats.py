"""The statistics the reproductions share (``airqueue.reproduce.report``): how a result
varies (straight-line misfit, coefficient of variation, rank correlation) and the
bootstrap over independent groups, each on hand-made numbers with a known answer."""

from __future__ import annotations

import math

import numpy as np
import pytest

from airqueue.reproduce.report import (
    bootstrap_groups,
    coefficient_of_variation,
    linear_misfit,
    rank_correlation,
)


def test_linear_misfit_is_one_minus_r_squared():
    assert linear_misfit([2, 4, 8], [5, 9, 17]) == pytest.approx(0.0, abs=1e-12)
    # x 1..4, y 1, 3, 2, 4: S_xy = 4, S_xx = S_yy = 5, so R^2 = 16 / 25.
    assert linear_misfit([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(0.36)
    x, y = [2, 4, 8, 12, 16, 20], [1.0, 2.8, 838.0, 2942.0, 4132.0, 4265.0]
    r = np.corrcoef(x, y)[0, 1]
    assert linear_misfit(x, y) == pytest.approx(1 - r * r)
    # Scale-free: the same misfit in b/s or kb/s.
    assert linear_misfit(x, [v * 1e3 for v in y]) == pytest.approx(linear_misfit(x, y))
    for bad in (([1, 2], [1, 2]), ([1, 2, 3], [5, 5, 5])):
        assert math.isnan(linear_misfit(*bad))


def test_coefficient_of_variation_over_the_curve_points():
    assert coefficient_of_variation([1.0, 3.0]) == pytest.approx(0.5)
    assert coefficient_of_variation([2.0, 2.0, 2.0]) == 0.0
    assert coefficient_of_variation([2, 4, 8, 12, 16, 20]) == pytest.approx(
        np.std([2, 4, 8, 12, 16, 20]) / np.mean([2, 4, 8, 12, 16, 20])
    )
    assert math.isnan(coefficient_of_variation([1.0]))
    assert math.isnan(coefficient_of_variation([1.0, -1.0]))


def test_rank_correlation_is_spearman_with_average_ranks():
    assert rank_correlation([1, 2, 3, 4], [10, 20, 15, 40]) == pytest.approx(0.8)
    assert rank_correlation([1, 2, 3, 4], [9, 5, 1, -3]) == pytest.approx(-1.0)
    # A monotone stretch (the 1 kb/s floor of a ratio) changes nothing.
    assert rank_correlation([1, 2, 3, 4], [0.1, 1e3, 2e3, 1e6]) == pytest.approx(1.0)
    # Ties: x ranks 1.5, 1.5, 3, 4 against y ranks 1..4: 4.5 / sqrt(4.5 * 5).
    assert rank_correlation([1, 1, 2, 3], [1, 2, 3, 4]) == pytest.approx(4.5 / math.sqrt(22.5))
    assert math.isnan(rank_correlation([1, 1, 1], [1, 2, 3]))


def test_bootstrap_groups_redraws_each_group_and_refuses_what_it_cannot_bound():
    def mean_of_first(groups):
        return sum(groups[0]) / len(groups[0])

    value, lo, hi = bootstrap_groups([list(range(1, 11))], mean_of_first)
    assert value == 5.5 and lo < 5.5 < hi
    assert 3.0 < lo and hi < 8.0
    # Identical samples: every resample is the same.
    assert bootstrap_groups([[2.0, 2.0], [3.0, 3.0]], lambda g: g[1][0] - g[0][0]) == (
        1.0,
        1.0,
        1.0,
    )
    # A group of one seed, or a resample without a finite value: no interval.
    assert bootstrap_groups([[1.0], [1.0, 2.0]], lambda g: 0.0) == (0.0, None, None)
    # 1 / max: infinite in the resamples that draw 0 twice.
    value, lo, hi = bootstrap_groups(
        [[0.0, 1.0]], lambda g: 1.0 / max(g[0]) if max(g[0]) else math.inf
    )
    assert value == 1.0 and lo is None and hi is None
    # Same data, same seed: same interval.
    assert bootstrap_groups([list(range(10))], mean_of_first) == bootstrap_groups(
        [list(range(10))], mean_of_first
    )
