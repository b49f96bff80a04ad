"""The bootstrap in DuckDB against an independent numpy computation from the same draws."""

from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa
import pytest

from memshift.analysis.bootstrap import (
    MIN_WORLDS,
    Resampling,
    multinomial_weights,
    register_weights,
    summarize,
    weight_matrix,
)


def _ratios(
    num: list[int],
    den: list[int],
    units: list[str] | None = None,
    worlds: list[int] | None = None,
    bounds: tuple[float | None, float | None] = (0.0, 1.0),
) -> pa.Table:
    worlds = worlds or list(range(100, 100 + len(num)))
    return pa.table(
        {
            "group": ["g"] * len(num),
            "world": pa.array(worlds, pa.int32()),
            "unit": units or [""] * len(num),
            "num": pa.array(num, pa.int64()),
            "den": pa.array(den, pa.int64()),
            "lowest": pa.array([bounds[0]] * len(num), pa.float64()),
            "highest": pa.array([bounds[1]] * len(num), pa.float64()),
        }
    )


def _summary(table: pa.Table, resampling: Resampling, units: list[str]) -> dict[str, float]:
    con = duckdb.connect(":memory:")
    con.register("ratios_arrow", table)
    con.execute("CREATE TABLE ratios AS SELECT * FROM ratios_arrow")
    register_weights(con, sorted(set(table["world"].to_pylist())), units, resampling)
    summarize(con, "ratios", ("group",), "out", resampling)
    names = [d[0] for d in con.sql("SELECT * FROM out").description]
    return dict(zip(names, con.execute("SELECT * FROM out").fetchone(), strict=True))


def _studentized(
    estimate: float, se: float, draws: np.ndarray, spread: np.ndarray, level: float = 0.95
) -> tuple[float, float, np.ndarray]:
    """The bootstrap-t interval from draws of the ratio and their standard errors."""
    # a draw without spread of its own is scaled by the study's standard error
    t = (draws - estimate) / np.where(spread > 0, spread, se)
    tail = (1 - level) / 2
    t_low, t_high = np.quantile(t, [tail, 1 - tail])
    return estimate - t_high * se, estimate - t_low * se, t


def _plain_reference(
    num: np.ndarray, den: np.ndarray, weights: np.ndarray
) -> tuple[float, float, float, float]:
    """Estimate, studentized interval and one-sided p-value of a ratio of per-world sums."""
    estimate = num.sum() / den.sum()
    se = np.sqrt(np.sum((num - estimate * den) ** 2)) / den.sum()
    draws = (weights @ num) / (weights @ den)
    residuals = num[None, :] - draws[:, None] * den[None, :]
    spread = np.sqrt(np.sum(weights * residuals**2, axis=1)) / (weights @ den)
    low, high, t = _studentized(estimate, se, draws, spread)
    p = (1 + np.sum(t >= estimate / se)) / (len(draws) + 1)
    return estimate, low, high, p


def test_studentized_interval_of_a_ratio_equals_numpy_on_the_same_draws() -> None:
    rng = np.random.default_rng(11)
    den = rng.integers(5, 60, size=20)
    num = rng.binomial(den, rng.beta(8, 4, size=20))
    resampling = Resampling(draws=2000, seed=5)
    found = _summary(_ratios(num.tolist(), den.tolist()), resampling, [])
    weights = weight_matrix(sorted(range(100, 120)), resampling, "worlds").astype(float)
    estimate, low, high, p = _plain_reference(num.astype(float), den.astype(float), weights)
    assert found["estimate"] == estimate
    assert found["low"] == pytest.approx(low, rel=1e-12)
    assert found["high"] == pytest.approx(high, rel=1e-12)
    assert found["p_one_sided"] == pytest.approx(p)
    assert (found["numerator"], found["n"], found["worlds"]) == (num.sum(), den.sum(), 20)


def test_percentile_interval_of_a_mean_equals_numpy_on_the_same_draws() -> None:
    # one item-time per world: the pooled ratio is a plain mean of per-world values
    rng = np.random.default_rng(11)
    values = rng.integers(0, 2, size=20).tolist()
    resampling = Resampling(draws=2000, seed=5, interval="percentile")
    found = _summary(_ratios(values, [1] * 20), resampling, [])
    weights = weight_matrix(sorted(range(100, 120)), resampling, "worlds")
    draws = (weights @ np.array(values)) / weights.sum(axis=1)
    low, high = np.percentile(draws, [2.5, 97.5])
    assert found["estimate"] == np.mean(values)
    assert found["low"] == low
    assert found["high"] == high
    assert found["p_one_sided"] == pytest.approx((1 + np.sum(draws <= 0)) / 2001)


def test_ratio_draws_pool_numerators_and_denominators() -> None:
    num, den = [3, 0, 7, 1, 4], [4, 2, 9, 5, 4]
    resampling = Resampling(draws=500, seed=1)
    found = _summary(_ratios(num, den), resampling, [])
    weights = weight_matrix(sorted(range(100, 105)), resampling, "worlds").astype(float)
    estimate, low, high, p = _plain_reference(np.array(num, float), np.array(den, float), weights)
    assert found["estimate"] == estimate == sum(num) / sum(den)
    assert found["low"] == pytest.approx(max(low, 0.0), rel=1e-12)
    assert found["high"] == pytest.approx(min(high, 1.0), rel=1e-12)
    assert found["p_one_sided"] == pytest.approx(p)


def test_product_sample_multiplies_world_and_unit_weights_in_percentile_intervals() -> None:
    num, den = [1, 1, 0, 1, 1, 0, 1, 1, 0, 1], [1] * 10
    units = ["a", "b"] * 5
    resampling = Resampling(draws=300, seed=2)
    found = _summary(_ratios(num, den, units), resampling, ["a", "b"])
    w = weight_matrix(sorted(range(100, 110)), resampling, "worlds")
    u = weight_matrix(["a", "b"], resampling, "units")
    unit_of = [0, 1] * 5
    both = w * u[:, unit_of]
    with np.errstate(invalid="ignore"):
        draws = (both @ np.array(num)) / (both @ np.array(den))
    draws = draws[~np.isnan(draws)]
    low, high = np.percentile(draws, [2.5, 97.5])
    assert found["low"] == pytest.approx(low, rel=1e-12)
    assert found["high"] == pytest.approx(high, rel=1e-12)
    assert found["p_one_sided"] == pytest.approx((1 + np.sum(draws <= 0)) / 301)


def test_an_interval_never_leaves_the_range_of_its_ratio() -> None:
    # one world holds nearly all the successes: the t-interval reaches past zero
    num, den = [0, 0, 0, 0, 0, 9], [3, 3, 3, 3, 3, 10]
    found = _summary(_ratios(num, den), Resampling(draws=400, seed=3), [])
    assert found["low"] == 0.0 and 0 < found["high"] <= 1.0


def test_worlds_that_all_share_one_ratio_give_the_estimate_as_interval() -> None:
    found = _summary(_ratios([2, 4, 6, 8, 10], [3, 6, 9, 12, 15]), Resampling(draws=200), [])
    assert found["low"] == found["high"] == found["estimate"] == pytest.approx(2 / 3)
    assert found["p_one_sided"] == pytest.approx(1 / 201)


def test_fewer_than_five_worlds_with_item_times_get_no_interval() -> None:
    # six worlds, but two of them have no item-times in this group
    num, den = [1, 2, 0, 3, 0, 0], [2, 3, 1, 4, 0, 0]
    found = _summary(_ratios(num, den), Resampling(draws=200), [])
    assert found["worlds"] == 4 < MIN_WORLDS
    assert found["estimate"] == pytest.approx(6 / 10)
    assert found["low"] is None and found["high"] is None and found["p_one_sided"] is None
    enough = _summary(_ratios([*num, 1], [*den, 2]), Resampling(draws=200), [])
    assert enough["worlds"] == MIN_WORLDS and enough["low"] is not None


def test_weights_are_reproducible_and_resample_with_replacement() -> None:
    first = weight_matrix(list(range(20)), Resampling(draws=50, seed=9), "worlds")
    again = weight_matrix(list(range(20)), Resampling(draws=50, seed=9), "worlds")
    other = weight_matrix(list(range(20)), Resampling(draws=50, seed=10), "worlds")
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other)
    assert (first.sum(axis=1) == 20).all()
    assert (first == 0).any()  # some world left out in some draw
    assert multinomial_weights(0, 3, np.random.default_rng(0)).shape == (3, 0)


@pytest.mark.parametrize(
    ("draws", "level", "interval"),
    [
        (0, 0.95, "studentized"),
        (10, 1.0, "studentized"),
        (10, 0.0, "studentized"),
        (10, 0.9, "bca"),
    ],
)
def test_bad_resampling_settings_are_refused(draws: int, level: float, interval: str) -> None:
    with pytest.raises(ValueError, match=r"draws|level|interval"):
        Resampling(draws=draws, level=level, interval=interval)  # type: ignore[arg-type]
