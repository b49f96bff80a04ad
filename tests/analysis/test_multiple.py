"""Holm and Benjamini-Hochberg against hand-worked examples."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memshift.analysis.multiple import benjamini_hochberg, holm


def test_holm_steps_down_and_stops_at_the_first_failure() -> None:
    # thresholds 0.05/4, 0.05/3, 0.05/2, 0.05/1 for the sorted p-values
    assert holm([0.01, 0.04, 0.03, 0.005], 0.05) == [True, False, False, True]
    assert holm([0.01, 0.012, 0.02, 0.04], 0.05) == [True, True, True, True]
    assert holm([0.01, 0.02, 0.03, 0.04], 0.05) == [True, False, False, False]


def test_benjamini_hochberg_keeps_everything_up_to_the_largest_passing_rank() -> None:
    # q*k/m = 0.0125, 0.025, 0.0375, 0.05: rank 4 passes (0.04 <= 0.05), so all four are kept
    assert benjamini_hochberg([0.01, 0.04, 0.03, 0.005], 0.05) == [True, True, True, True]
    assert benjamini_hochberg([0.02, 0.5, 0.9], 0.05) == [False, False, False]
    assert benjamini_hochberg([0.01, 0.5, 0.9], 0.05) == [True, False, False]


@given(st.lists(st.floats(min_value=0, max_value=1), max_size=30))
def test_holm_never_keeps_more_than_benjamini_hochberg(p_values: list[float]) -> None:
    kept_holm = holm(p_values, 0.05)
    kept_bh = benjamini_hochberg(p_values, 0.05)
    assert all(b or not h for h, b in zip(kept_holm, kept_bh, strict=True))
    assert all(p <= 0.05 for p, h in zip(p_values, kept_holm, strict=True) if h)
