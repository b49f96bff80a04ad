"""Intervals of combinations of ratios: the same interval as the report's SQL for one ratio, and
95% coverage for a ratio of two ratios on simulated studies (on more than one seed)."""

from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa
import pytest

from memshift.analysis.bootstrap import Resampling, register_weights, summarize, weight_matrix
from memshift.rng import stream
from memshift.studies.validation.composite_analysis import Sums, studentized

WORLDS = 20


def test_one_ratio_gets_the_interval_the_report_computes() -> None:
    rng = np.random.default_rng(1)
    den = rng.integers(20, 60, WORLDS)
    num = rng.binomial(den, rng.uniform(0.35, 0.65, WORLDS))
    resampling = Resampling(draws=2000, seed=4)
    worlds = list(range(1000, 1000 + WORLDS))
    con = duckdb.connect(":memory:")
    table = pa.table(
        {
            "group": ["g"] * WORLDS,
            "world": pa.array(worlds, pa.int32()),
            "unit": [""] * WORLDS,
            "num": pa.array(num, pa.int64()),
            "den": pa.array(den, pa.int64()),
            "lowest": pa.array([0.0] * WORLDS),
            "highest": pa.array([1.0] * WORLDS),
        }
    )
    con.register("ratios_arrow", table)
    con.execute("CREATE TABLE ratios AS SELECT * FROM ratios_arrow")
    register_weights(con, worlds, [], resampling)
    summarize(con, "ratios", ("group",), "out", resampling)
    estimate, low, high = con.execute("SELECT estimate, low, high FROM out").fetchone()
    weights = weight_matrix(worlds, resampling, "worlds").astype(float)
    found = studentized({"x": Sums(num, den)}, lambda v: v["x"], weights)
    assert found.estimate == pytest.approx(estimate)
    assert (found.low, found.high) == pytest.approx((low, high), abs=1e-6)


def test_fewer_than_five_worlds_give_no_interval() -> None:
    sums = {"x": Sums(np.array([1, 2, 0, 0, 0]), np.array([3, 4, 0, 0, 0]))}
    found = studentized(sums, lambda v: v["x"], np.ones((10, 5)))
    assert found.estimate == pytest.approx(3 / 7) and found.low is None and found.worlds == 2


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_a_ratio_of_ratios_is_covered_about_95_percent_of_the_time(seed: int) -> None:
    """Recovering an injected error rate: 1 - r(weak writer) / r(exact writer) on the same
    worlds, where the weak writer is wrong on a share e of what the exact one gets right."""
    rng = stream(seed, "composite-coverage")
    e, studies, covered = 0.3, 1000, 0
    weights = weight_matrix(range(WORLDS), Resampling(draws=1000, seed=seed), "worlds")
    for _ in range(studies):
        den = rng.integers(8, 40, WORLDS)
        right = rng.binomial(den, rng.beta(14, 6, WORLDS))
        weak = rng.binomial(right, 1 - e)
        sums = {"weak": Sums(weak, den), "exact": Sums(right, den)}
        found = studentized(sums, lambda v: 1 - v["weak"] / v["exact"], weights.astype(float))
        covered += found.low <= e <= found.high
    # 1,000 studies: a 95% procedure lands in [0.93, 0.97] with probability above 0.99 (the
    # percentile interval of the same draws covers about 0.92)
    assert 0.93 <= covered / studies <= 0.97
