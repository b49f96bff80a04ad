"""The estimators recover known m, r, a and effects, and their 95% intervals cover the truth."""

from __future__ import annotations

import duckdb
import numpy as np
import pytest

from analysis.simulated import Truth, item_times, load
from memshift.analysis import contrasts, measures
from memshift.analysis.bootstrap import Resampling, register_weights, summarize
from memshift.analysis.sqlfiles import run

SIMULATIONS = 500
WORLDS = 20
TRUTH = Truth()


@pytest.fixture(scope="module")
def estimates() -> tuple[dict[str, np.ndarray], np.ndarray]:
    con = duckdb.connect(":memory:")
    load(con, item_times(TRUTH, SIMULATIONS, WORLDS, per_world=40, seed=7))
    run(con, "world_counts")
    run(con, "measure_ratios")
    con.execute(
        "CREATE TABLE picked AS SELECT * FROM measure_ratios WHERE system = 'holdmem-d0-source' "
        "AND item_class = 'all' AND cause = 'all' AND checkpoint = -1 "
        "AND measure IN ('update', 'm', 'r', 'a')"
    )
    resampling = Resampling(draws=2000, seed=3)
    register_weights(con, list(range(WORLDS)), [], resampling)
    summarize(con, "picked", ("branch", "measure"), "summary", resampling)
    found: dict[str, np.ndarray] = {}
    for name in ("update", "m", "r", "a"):
        found[name] = np.array(
            con.sql(
                f"SELECT estimate, low, high FROM summary WHERE measure = '{name}' ORDER BY branch"
            ).fetchall()
        )
    effect = contrasts.Contrast("B", "source", "D=0", (("holdmem-d0-source", 1), ("bm25", -1)))
    table = contrasts.compute(con, [effect], resampling)
    rows = table.filter(table["item_class"].to_numpy(zero_copy_only=False) == "all")
    found["effect"] = np.column_stack([rows[c].to_numpy() for c in ("estimate", "low", "high")])
    return found, np.array([len(found["update"])])


@pytest.mark.parametrize(
    ("name", "truth"),
    [
        ("update", TRUTH.update),
        ("m", TRUTH.m),
        ("r", TRUTH.r),
        ("a", TRUTH.a),
        ("effect", TRUTH.effect),
    ],
)
def test_intervals_cover_the_truth_about_95_percent_of_the_time(
    estimates: tuple[dict[str, np.ndarray], np.ndarray], name: str, truth: float
) -> None:
    found, _ = estimates
    estimate, low, high = found[name].T
    assert len(estimate) == SIMULATIONS
    assert abs(estimate.mean() - truth) < 0.01  # the estimates recover the truth
    coverage = np.mean((low <= truth) & (truth <= high))
    assert 0.92 <= coverage <= 0.98, f"{name}: coverage {coverage:.3f}"


def test_update_decomposes_exactly_in_every_simulation(
    estimates: tuple[dict[str, np.ndarray], np.ndarray],
) -> None:
    found, _ = estimates
    update, m, r, a = (found[name][:, 0] for name in ("update", "m", "r", "a"))
    recomposed = np.array([measures.decomposed(*args) for args in zip(m, r, a, strict=True)])
    assert np.max(np.abs(update - recomposed)) < measures.IDENTITY_TOLERANCE
