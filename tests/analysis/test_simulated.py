"""The coverage simulator: its truth is what the pooled estimates converge to, and its per-world
counts are the ones the report's SQL computes from the same item-times."""

from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa
import pytest

from memshift.analysis import contrasts, measures
from memshift.analysis.bootstrap import Resampling, register_weights, summarize
from memshift.analysis.sqlfiles import run
from memshift.rng import stream
from memshift_tools.bench.simulated import (
    CHANGED_PER_WORLD,
    KEY,
    MEASURES,
    OTHER,
    TWIN,
    Population,
    item_times,
    simulate,
    truth,
    world_ratios,
)

POPULATIONS = [Population(), Population(m=0.1, r=0.9, a=0.3, other=0.6, spread=1.0)]
STUDIES = 100


@pytest.mark.parametrize("population", POPULATIONS)
def test_the_quadrature_has_converged(population: Population) -> None:
    coarse, fine = truth(population, nodes=16), truth(population, nodes=24)
    assert all(abs(coarse[name] - fine[name]) < 1e-7 for name in MEASURES)


@pytest.mark.parametrize("population", POPULATIONS)
def test_the_truth_is_the_pooled_ratio_over_very_many_worlds(population: Population) -> None:
    # 40,000 worlds in one pool: the pooled ratio lies within about 0.002 of its limit
    found = world_ratios(
        simulate(population, CHANGED_PER_WORLD["def"], 1, 40_000, stream(5, "truth"))
    )
    target = truth(population)
    for name in MEASURES:
        rows = found.filter(pa.compute.equal(found["measure"], name))
        num, den = (rows[c].to_numpy().astype(float) for c in ("num", "den"))
        pooled = num.sum() / den.sum()
        error = np.sqrt(np.sum((num - pooled * den) ** 2)) / den.sum()  # linearised
        assert abs(pooled - target[name]) < 4 * error, name


@pytest.fixture(scope="module")
def studies() -> duckdb.DuckDBPyConnection:
    """Simulated studies of 20 src-like worlds through the report's own SQL."""
    outcomes = simulate(Population(), CHANGED_PER_WORLD["src"], STUDIES, 20, stream(6, "studies"))
    con = duckdb.connect(":memory:")
    con.register("simulated", item_times(outcomes))
    con.execute("CREATE TABLE item_times AS SELECT * FROM simulated")
    con.register("ratios_arrow", world_ratios(outcomes))
    con.execute("CREATE TABLE ratios AS SELECT * FROM ratios_arrow")
    run(con, "world_counts")
    run(con, "measure_ratios")
    resampling = Resampling(draws=50, seed=1)
    register_weights(con, list(range(20)), [], resampling)
    summarize(con, "ratios", ("study", "measure"), "summary", resampling)
    effects = [
        contrasts.Contrast("B", "source", "D=0", ((KEY, 1), (OTHER, -1))),
        contrasts.Contrast("B", "citation", "D=0", ((TWIN, 1), (KEY, -1))),
    ]
    contrasts.paired(con, effects, resampling)
    return con


def test_the_simulated_counts_are_the_reports_counts(studies: duckdb.DuckDBPyConnection) -> None:
    from_report = """
        SELECT 'sim' || study AS branch, measure, world, num, den FROM ratios
        EXCEPT
        SELECT branch, measure, world, num, den FROM measure_ratios
        WHERE system = $key AND item_class = 'all' AND cause = 'all' AND checkpoint = -1
        EXCEPT
        SELECT branch, CASE contrast_id WHEN 0 THEN 'contrast' ELSE 'null contrast' END,
            world, num, den
        FROM contrast_ratios WHERE item_class = 'all'
    """
    assert studies.execute(from_report, {"key": KEY}).fetchall() == []


def test_the_estimates_recover_the_truth(studies: duckdb.DuckDBPyConnection) -> None:
    target = truth(Population())
    for name in MEASURES:
        [(mean, spread)] = studies.execute(
            "SELECT avg(estimate), stddev_samp(estimate) FROM summary WHERE measure = $m",
            {"m": name},
        ).fetchall()
        assert abs(mean - target[name]) < 4 * spread / np.sqrt(STUDIES), name


def test_update_decomposes_exactly_in_every_study(studies: duckdb.DuckDBPyConnection) -> None:
    rows = studies.sql(
        "SELECT study, "
        + ", ".join(
            f"any_value(estimate) FILTER (measure = '{m}')" for m in ("update", "m", "r", "a")
        )
        + " FROM summary GROUP BY study"
    ).fetchall()
    assert len(rows) == STUDIES
    for _, update, m, r, a in rows:
        assert abs(update - measures.decomposed(m, r, a)) < measures.IDENTITY_TOLERANCE
