"""Survival prediction: AUROC against pair counting, the logistic fit against its score
equations and known slopes, and the world bootstrap against draws computed one at a time."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from memshift.analysis.bootstrap import Resampling, weight_matrix
from memshift.studies.switch.prediction_analysis import (
    auroc,
    auroc_difference,
    calibration_slope,
    logit_clipped,
    predict,
)

SIMULATIONS = 200
ALPHA = 0.3


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


def _pairs(scores: list[int], labels: list[bool], weights: list[float]) -> float | None:
    """AUROC by counting every positive-negative pair."""
    wins = total = 0.0
    for i, j in itertools.product(range(len(scores)), repeat=2):
        if labels[i] and not labels[j]:
            pair = weights[i] * weights[j]
            total += pair
            wins += pair * (1.0 if scores[i] > scores[j] else 0.5 if scores[i] == scores[j] else 0)
    return wins / total if total > 0 else None


rows = st.integers(min_value=0, max_value=40).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 4), min_size=n, max_size=n),
        st.lists(st.booleans(), min_size=n, max_size=n),
        st.lists(st.one_of(st.just(0.0), st.floats(0.01, 10.0)), min_size=n, max_size=n),
    )
)


@given(rows)
def test_auroc_equals_weighted_pair_counting_with_half_a_win_per_tie(
    data: tuple[list[int], list[bool], list[float]],
) -> None:
    scores, labels, weights = data
    expected = _pairs(scores, labels, weights)
    found = auroc(scores, labels, weights)
    if expected is None:
        assert found is None
    else:
        assert found == pytest.approx(expected, rel=1e-12, abs=1e-12)
    unweighted = _pairs(scores, labels, [1.0] * len(scores))
    if unweighted is None:
        assert auroc(scores, labels) is None
    else:
        assert auroc(scores, labels) == pytest.approx(unweighted, rel=1e-12)


def test_auroc_is_none_without_both_classes_and_extreme_when_separated() -> None:
    assert auroc([0.1, 0.5, 0.9], [True, True, True]) is None
    assert auroc([0.1, 0.5, 0.9], [False, False, False]) is None
    assert auroc([0.1, 0.5, 0.9], [True, False, True], [0.0, 1.0, 0.0]) is None
    assert auroc([0.1, 0.2, 0.8, 0.9], [False, False, True, True]) == 1.0
    assert auroc([0.1, 0.2, 0.8, 0.9], [True, True, False, False]) == 0.0
    assert auroc([0.5, 0.5], [True, False]) == 0.5


def _overlapping(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    p = rng.uniform(0.05, 0.95, n)
    return p, rng.random(n) < p


@settings(max_examples=200)
@given(st.integers(0, 2**32 - 1))
# a Newton step that ran η to -25,000: with e^-η clipped its likelihood looked better than it was
@example(4955776)
def test_the_fit_solves_the_weighted_score_equations(seed: int) -> None:
    # tied and clipped predictors and weights up to 50: plain Newton steps overshoot on many of
    # these, so the step halving is exercised
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 60))
    p = np.where(
        rng.random(n) < 0.5, rng.choice([0.0, 0.01, 0.3, 0.5, 0.7, 0.99, 1.0], n), rng.random(n)
    )
    y = rng.random(n) < rng.random()
    weights = rng.choice([0.0, 0.5, 1.0, 3.0, 50.0], n)
    x = logit_clipped(p)
    used = weights > 0
    survivors, failures = x[used & y], x[used & ~y]
    separated = (
        survivors.size == 0
        or failures.size == 0
        or failures.max() <= survivors.min()
        or survivors.max() <= failures.min()
    )
    fit = calibration_slope(p, y, weights)
    if separated:
        assert fit is None
        return
    assert fit is not None
    residual = weights * (y - _sigmoid(fit[0] + fit[1] * x))
    assert abs(residual.sum()) < 1e-9 * weights.sum()
    assert abs(residual @ x) < 1e-9 * weights.sum()


def test_a_step_that_overshoots_is_halved() -> None:
    # the first full Newton step from the intercept-only fit lowers the likelihood here, and
    # unhalved steps never settle
    p, y, weights = (
        np.array([0.99, 0.3, 0.99, 1.0]),
        np.array([1, 0, 0, 0]),
        np.array([1, 50, 1, 1]),
    )
    fit = calibration_slope(p, y, weights)
    assert fit is not None
    residual = weights * (y - _sigmoid(fit[0] + fit[1] * logit_clipped(p)))
    assert abs(residual.sum()) < 1e-9 and abs(residual @ logit_clipped(p)) < 1e-9


def test_integer_weights_fit_as_duplicated_rows() -> None:
    rng = np.random.default_rng(7)
    p, y = _overlapping(rng, 300)
    weights = rng.integers(0, 4, 300)
    weighted = calibration_slope(p, y, weights)
    duplicated = calibration_slope(np.repeat(p, weights), np.repeat(y, weights))
    assert weighted is not None and duplicated is not None
    assert weighted == pytest.approx(duplicated, rel=1e-9, abs=1e-12)
    unweighted = calibration_slope(p, y)
    assert unweighted is not None and abs(unweighted[1] - weighted[1]) > 1e-6


def test_the_fit_is_none_where_it_is_undefined() -> None:
    rng = np.random.default_rng(3)
    p, y = _overlapping(rng, 100)
    assert calibration_slope(p, y) is not None
    assert calibration_slope(p, np.ones(100, dtype=bool)) is None
    assert calibration_slope(p, np.zeros(100, dtype=bool)) is None
    assert calibration_slope(np.full(100, 0.7), y) is None
    assert calibration_slope(p, y, np.zeros(100)) is None
    # 0.999 and 1.0 are both clipped to 0.995: constant after clipping
    assert calibration_slope([0.999, 1.0, 0.999, 1.0], [True, False, False, True]) is None
    # rows that carry no weight do not count
    assert calibration_slope(p, y, np.where(y, 1.0, 0.0)) is None


def test_separation_gives_none_without_overflow() -> None:
    p = np.linspace(0.001, 0.999, 200)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert calibration_slope(p, p > 0.5) is None
        assert calibration_slope(p, p < 0.5) is None
        # quasi-separation: the two outcomes meet at one predictor value
        assert calibration_slope([0.1, 0.2, 0.5, 0.5, 0.8, 0.9], [0, 0, 0, 1, 1, 1]) is None
        # one crossing pair is enough for a finite maximum, however steep
        crossed = (p > 0.5) ^ np.isin(np.arange(200), [95, 105])
        fit = calibration_slope(p, crossed)
        assert fit is not None and fit[1] > 1
        # predictors of exactly 0 and 1 are clipped, not infinite
        assert calibration_slope([0.0, 0.0, 1.0, 1.0], [False, True, False, True]) is not None
        assert calibration_slope([0.0, 1.0], [True, False]) is None


def _simulate(seed: int, beta: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """20 worlds of 120 items each; an item's predictor is its type's, one of 30 types whose
    logits spread over [-3, 3]; survival follows logit P = ALPHA + beta·logit(predictor)."""
    rng = np.random.default_rng(seed)
    types = _sigmoid(rng.uniform(-3, 3, 30))
    worlds = np.repeat(np.arange(20), 120)
    predictor = types[rng.integers(0, 30, len(worlds))]
    survived = rng.random(len(worlds)) < _sigmoid(ALPHA + beta * logit_clipped(predictor))
    return worlds, predictor, survived


@pytest.mark.parametrize("beta", [0.0, 0.5, 1.0])
def test_the_slope_interval_covers_the_true_slope(beta: float) -> None:
    covered = 0
    for seed in range(SIMULATIONS):
        worlds, predictor, survived = _simulate(seed, beta)
        found = predict(worlds, predictor, survived, Resampling(draws=300, level=0.9, seed=seed))
        assert found.usable and found.slope_low is not None and found.slope_high is not None
        covered += found.slope_low <= beta <= found.slope_high
    # nominal 90%. Plain percentile intervals over 20 worlds covered 86-89% over 1,000 other
    # seeds; widened by sqrt(G/(G-1)) they cover 89.0% (β = 0), 88.6% (0.5) and 90.2% (1) over
    # seeds 1000-1999, every block of 200 of them at least 85.5%
    assert covered / SIMULATIONS >= 0.85, covered


def test_the_bootstrap_equals_fits_of_each_draw_done_one_at_a_time() -> None:
    worlds, predictor, survived = _simulate(11, 0.7)
    worlds = 1000 + 7 * worlds[::-1]  # unsorted, spaced world labels
    resampling = Resampling(draws=40, level=0.8, seed=5)
    found = predict(worlds, predictor, survived, resampling, name="check")
    unique = sorted(set(worlds.tolist()))
    drawn = weight_matrix(unique, resampling, "check")[:, np.searchsorted(unique, worlds)]
    slopes = [calibration_slope(predictor, survived, w) for w in drawn]
    aurocs = [auroc(predictor, survived, w) for w in drawn]
    assert all(s is not None for s in slopes) and all(a is not None for a in aurocs)
    point = calibration_slope(predictor, survived)
    assert point is not None and found.slope == pytest.approx(point[1], rel=1e-9)
    assert found.auroc == pytest.approx(auroc(predictor, survived), rel=1e-12)
    # the percentile ends, each moved away from the estimate by sqrt(G/(G-1)), G = 20 worlds
    widen = np.sqrt(20 / 19)

    def widened(centre: float, draws: list[float]) -> list[float]:
        low, high = np.quantile(draws, [0.1, 0.9])
        return [centre - widen * (centre - low), centre + widen * (high - centre)]

    assert [found.slope_low, found.slope_high] == pytest.approx(
        widened(point[1], [s[1] for s in slopes]), rel=1e-9
    )
    assert [found.auroc_low, found.auroc_high] == pytest.approx(
        widened(found.auroc, aurocs), rel=1e-12
    )


def test_predict_is_reproducible_and_its_intervals_hold_the_estimates() -> None:
    worlds, predictor, survived = _simulate(2, 1.0)
    first = predict(worlds, predictor, survived, Resampling(draws=200, seed=1))
    assert first == predict(worlds, predictor, survived, Resampling(draws=200, seed=1))
    other = predict(worlds, predictor, survived, Resampling(draws=200, seed=2))
    assert (other.slope, other.auroc) == (first.slope, first.auroc)
    assert (other.slope_low, other.auroc_low) != (first.slope_low, first.auroc_low)
    for found in (first, other):
        assert found.n == 2400 and found.failures == int(np.sum(~survived))
        assert found.slope_low < found.slope < found.slope_high
        assert found.auroc_low < found.auroc < found.auroc_high


def _few_failures(failures: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(4)
    worlds = np.repeat(np.arange(10), 20)
    predictor = rng.uniform(0.05, 0.95, 200)
    survived = np.ones(200, dtype=bool)
    # failures spread over the range of the predictor, so that they overlap the survivors
    survived[np.argsort(predictor)[np.linspace(5, 194, failures).astype(int)]] = False
    return worlds, predictor, survived


def test_usable_needs_ten_failures_and_unusable_estimates_are_kept() -> None:
    resampling = Resampling(draws=100, seed=3)
    nine = predict(*_few_failures(9), resampling)
    ten = predict(*_few_failures(10), resampling)
    assert (nine.failures, ten.failures) == (9, 10)
    assert not nine.usable and ten.usable
    assert nine.slope is not None and nine.auroc is not None
    assert predict(*_few_failures(9), resampling, min_failures=9).usable


def test_predict_without_failures_has_no_slope_and_is_not_usable() -> None:
    worlds, predictor, _ = _few_failures(10)
    found = predict(worlds, predictor, np.ones(200, dtype=bool), Resampling(draws=50))
    assert found.failures == 0 and not found.usable
    assert found.slope is found.slope_low is found.auroc is found.auroc_low is None


def test_auroc_difference_of_a_predictor_with_itself_is_exactly_zero() -> None:
    worlds, predictor, survived = _simulate(5, 1.0)
    units = np.searchsorted(np.unique(predictor), predictor)
    resampling = Resampling(draws=200, seed=9)
    found = auroc_difference(worlds, units, predictor, predictor, survived, resampling, "same")
    assert found == (0.0, 0.0, 0.0)


def test_auroc_difference_favours_the_better_predictor() -> None:
    worlds, predictor, survived = _simulate(6, 1.0)
    units = np.searchsorted(np.unique(predictor), predictor)
    noise = np.random.default_rng(6).uniform(0, 1, 30)[units]
    resampling = Resampling(draws=200, seed=9)
    better = auroc_difference(worlds, units, predictor, noise, survived, resampling, "versus")
    worse = auroc_difference(worlds, units, noise, predictor, survived, resampling, "versus")
    assert better[0] is not None and better[1] is not None and better[2] is not None
    assert 0 < better[1] < better[0] < better[2]
    assert worse == pytest.approx((-better[0], -better[2], -better[1]), abs=1e-12)
