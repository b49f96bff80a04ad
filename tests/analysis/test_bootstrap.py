"""The bootstrap in DuckDB against an independent numpy computation from the same draws."""

from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa
import pytest

from memshift.analysis.bootstrap import (
    Resampling,
    multinomial_weights,
    register_weights,
    summarize,
    weight_matrix,
)


def _ratios(num: list[int], den: list[int], units: list[str] | None = None) -> pa.Table:
    worlds = list(range(100, 100 + len(num)))
    return pa.table(
        {
            "group": ["g"] * len(num),
            "world": pa.array(worlds, pa.int32()),
            "unit": units or [""] * len(num),
            "num": pa.array(num, pa.int64()),
            "den": pa.array(den, pa.int64()),
        }
    )


def _summary(table: pa.Table, resampling: Resampling, units: list[str]) -> dict[str, float]:
    con = duckdb.connect(":memory:")
    con.register("ratios_arrow", table)
    con.execute("CREATE TABLE ratios AS SELECT * FROM ratios_arrow")
    register_weights(con, table["world"].to_pylist(), units, resampling)
    summarize(con, "ratios", ("group",), "out", resampling)
    names = [d[0] for d in con.sql("SELECT * FROM out").description]
    return dict(zip(names, con.execute("SELECT * FROM out").fetchone(), strict=True))


def test_percentile_interval_of_a_mean_equals_numpy_on_the_same_draws() -> None:
    # one item-time per world: the pooled ratio is a plain mean of per-world values
    rng = np.random.default_rng(11)
    values = rng.integers(0, 2, size=20).tolist()
    resampling = Resampling(draws=2000, seed=5)
    found = _summary(_ratios(values, [1] * 20), resampling, [])
    weights = weight_matrix(sorted(range(100, 120)), resampling, "worlds")
    draws = (weights @ np.array(values)) / weights.sum(axis=1)
    low, high = np.percentile(draws, [2.5, 97.5])
    assert found["estimate"] == np.mean(values)
    assert found["low"] == low
    assert found["high"] == high


def test_ratio_draws_pool_numerators_and_denominators() -> None:
    num, den = [3, 0, 7, 1, 4], [4, 2, 9, 5, 4]
    resampling = Resampling(draws=500, seed=1)
    found = _summary(_ratios(num, den), resampling, [])
    weights = weight_matrix(sorted(range(100, 105)), resampling, "worlds")
    draws = (weights @ np.array(num)) / (weights @ np.array(den))
    assert found["estimate"] == sum(num) / sum(den)
    assert (found["low"], found["high"]) == tuple(np.percentile(draws, [2.5, 97.5]))
    assert found["p_one_sided"] == pytest.approx((1 + np.sum(draws <= 0)) / 501)


def test_product_sample_multiplies_world_and_unit_weights() -> None:
    num, den, units = [1, 1, 0, 1], [1, 1, 1, 1], ["a", "b", "a", "b"]
    resampling = Resampling(draws=300, seed=2)
    found = _summary(_ratios(num, den, units), resampling, ["a", "b"])
    w = weight_matrix(sorted(range(100, 104)), resampling, "worlds")
    u = weight_matrix(["a", "b"], resampling, "units")
    unit_of = [0, 1, 0, 1]
    both = w * u[:, unit_of]
    with np.errstate(invalid="ignore"):
        draws = (both @ np.array(num)) / (both @ np.array(den))
    draws = draws[~np.isnan(draws)]
    assert (found["low"], found["high"]) == tuple(np.percentile(draws, [2.5, 97.5]))


def test_weights_are_reproducible_and_resample_with_replacement() -> None:
    first = weight_matrix(list(range(20)), Resampling(draws=50, seed=9), "worlds")
    again = weight_matrix(list(range(20)), Resampling(draws=50, seed=9), "worlds")
    other = weight_matrix(list(range(20)), Resampling(draws=50, seed=10), "worlds")
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other)
    assert (first.sum(axis=1) == 20).all()
    assert (first == 0).any()  # some world left out in some draw
    assert multinomial_weights(0, 3, np.random.default_rng(0)).shape == (3, 0)


@pytest.mark.parametrize(("draws", "level"), [(0, 0.95), (10, 1.0), (10, 0.0)])
def test_bad_resampling_settings_are_refused(draws: int, level: float) -> None:
    with pytest.raises(ValueError, match=r"draws|level"):
        Resampling(draws=draws, level=level)
