"""The grid's prediction: each anchor's outcome at its corner, shares in between, and the share a
writer flipping the grid's coins gets right on average."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from memshift.studies.validation.grid_prediction_analysis import (
    Corners,
    overlooked_throughout,
    predicted_right,
    predicted_yield,
)

SIZE = 12
outcomes = hnp.arrays(np.float64, SIZE, elements=st.sampled_from([0.0, 1.0]))
chances = hnp.arrays(np.int64, SIZE, elements=st.integers(0, 4))
flags = hnp.arrays(np.bool_, SIZE)
rates = st.floats(0.0, 1.0)


def full(value: float) -> np.ndarray:
    return np.full(SIZE, value)


@settings(max_examples=100, deadline=None)
@given(exact=outcomes, wrong=outcomes, blind=outcomes, both=outcomes, k=chances, delta=flags)
def test_at_each_corner_the_prediction_is_that_anchors_outcome(exact, wrong, blind, both, k, delta):
    corners = Corners(exact, wrong, blind, both)
    for (error, overlook), expected in (
        ((0.0, 0.0), exact),
        ((1.0, 0.0), wrong),
        ((0.0, 1.0), blind),
        ((1.0, 1.0), both),
    ):
        q = overlooked_throughout(full(overlook), k, delta)
        assert np.array_equal(predicted_right(corners, full(error), q), expected)


@settings(max_examples=100, deadline=None)
@given(
    exact=outcomes, wrong=outcomes, blind=outcomes, both=outcomes, k=chances, delta=flags,
    error=rates, overlook=rates,
)  # fmt: skip
def test_a_prediction_is_a_share_linear_in_the_error_rate(
    exact, wrong, blind, both, k, delta, error, overlook
):
    corners = Corners(exact, wrong, blind, both)
    q = overlooked_throughout(full(overlook), k, delta)
    right = predicted_right(corners, full(error), q)
    assert np.all((right >= -1e-12) & (right <= 1 + 1e-12))
    ends = [predicted_right(corners, full(e), q) for e in (0.0, 1.0)]
    assert np.allclose(right, (1 - error) * ends[0] + error * ends[1])


@settings(max_examples=100, deadline=None)
@given(k=chances, low=rates, high=rates)
def test_the_yield_falls_with_the_overlook_rate_from_the_references_to_none(k, low, high):
    low, high = sorted((low, high))
    assert np.array_equal(predicted_yield(full(0.0), k), (k > 0).astype(float))
    assert np.all(predicted_yield(full(1.0), k) == 0.0)
    assert np.all(predicted_yield(full(low), k) >= predicted_yield(full(high), k) - 1e-12)


def test_cells_that_never_read_a_delta_ignore_the_overlook_rate():
    corners = Corners(full(1.0), full(0.0), full(1.0), full(0.0))
    for overlook in (0.0, 0.3, 1.0):
        q = overlooked_throughout(full(overlook), np.full(SIZE, 3), np.zeros(SIZE, bool))
        assert np.allclose(predicted_right(corners, full(0.25), q), 0.75)


@pytest.mark.parametrize("seed", [3, 17, 2024, 90210])
def test_a_writer_flipping_the_coins_gets_the_predicted_share_right(seed: int) -> None:
    """Item-times with k chances: a delta write overlooked with probability o at each chance,
    the written value wrong with probability e; right as the anchor of what happened says."""
    rng = np.random.default_rng(seed)
    n, error, overlook = 40_000, 0.37, 0.58
    corners = Corners(*(rng.integers(0, 2, n).astype(float) for _ in range(4)))
    k = rng.integers(0, 5, n)
    delta = rng.random(n) < 0.5
    every_chance_missed = np.where(
        delta & (k > 0),
        np.all(rng.random((n, 4)) < overlook, axis=1, where=np.arange(4) < k[:, None]),
        rng.random(n) < overlook,
    )
    struck = rng.random(n) < error
    outcome = np.select(
        [
            ~every_chance_missed & ~struck,
            ~every_chance_missed & struck,
            every_chance_missed & ~struck,
        ],
        [corners.exact, corners.wrong, corners.blind],
        corners.both,
    )
    q = overlooked_throughout(full_of(n, overlook), k, delta)
    predicted = predicted_right(corners, full_of(n, error), q)
    # the mean of 40,000 independent 0/1 outcomes lies within 4 standard errors of its mean
    assert abs(outcome.mean() - predicted.mean()) < 4 * np.sqrt(0.25 / n)
    yielded = delta & (k > 0) & ~every_chance_missed
    expected = predicted_yield(full_of(n, overlook), np.where(delta, k, 0))
    assert abs(yielded.mean() - expected.mean()) < 4 * np.sqrt(0.25 / n)


def full_of(n: int, value: float) -> np.ndarray:
    return np.full(n, value)
