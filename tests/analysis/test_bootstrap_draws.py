"""The plain groups' bootstrap draws, computed in numpy, are the doubles the SQL computed: the
whole summary, bit for bit, equals the one the SQL statement it replaced gives (kept here as the
reference), on whole and fractional numerators, product samples and degenerate groups."""

from __future__ import annotations

import struct

import duckdb
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from memshift.analysis.bootstrap import Resampling, plain_draws, register_weights, summarize
from memshift.analysis.sqlfiles import identifiers, run

# The statement of boot_drawn before the plain groups' draws moved to numpy.
SQL_DRAWS = """
CREATE OR REPLACE TEMP TABLE boot_drawn AS
WITH vectors AS (
    SELECT
        g.gid,
        list(coalesce(c.num, 0)::DOUBLE ORDER BY w.pos) AS nums,
        list(coalesce(c.den, 0)::DOUBLE ORDER BY w.pos) AS dens,
        list(coalesce(c.num * c.num, 0)::DOUBLE ORDER BY w.pos) AS nn,
        list(coalesce(c.num * c.den, 0)::DOUBLE ORDER BY w.pos) AS nd,
        list(coalesce(c.den * c.den, 0)::DOUBLE ORDER BY w.pos) AS dd
    FROM (SELECT gid FROM boot_point WHERE plain AND n <> 0) AS g
    CROSS JOIN world_positions AS w
    LEFT JOIN (
        SELECT gid, world, sum(num) AS num, sum(den) AS den FROM boot_groups GROUP BY gid, world
    ) AS c ON c.gid = g.gid AND c.world = w.world
    GROUP BY g.gid
),
sums AS (
    SELECT
        v.gid,
        list_dot_product(d.weights, v.nums) AS sn,
        list_dot_product(d.weights, v.dens) AS sd,
        list_dot_product(d.weights, v.nn) AS snn,
        list_dot_product(d.weights, v.nd) AS snd,
        list_dot_product(d.weights, v.dd) AS sdd
    FROM vectors AS v
    CROSS JOIN world_vectors AS d
),
studentized AS (
    SELECT
        gid,
        sn,
        sd,
        sn / sd AS value,
        greatest(snn - 2 * (sn / sd) * snd + (sn / sd) * (sn / sd) * sdd, 0) / (sd * sd)
            AS variance
    FROM sums
    WHERE sd <> 0
)
SELECT
    s.gid,
    s.value,
    CASE
        WHEN NOT p.studentized THEN NULL
        WHEN s.sn * p.n = p.numerator * s.sd THEN 0
        WHEN s.variance > 0 THEN (s.value - p.estimate) / sqrt(s.variance)
        -- a draw of worlds that all share one ratio has no spread of its own: it is scaled by
        -- the study's standard error (an infinite t would stretch the interval to the ratio's
        -- bounds whenever a few percent of the draws are such, as near 0% or 100%)
        ELSE (s.value - p.estimate) / p.se
    END AS t
FROM studentized AS s
JOIN boot_point AS p USING (gid)
UNION ALL
SELECT
    r.gid,
    sum(w.weight * r.num * coalesce(u.weight, 0))::DOUBLE
    / nullif(sum(w.weight * r.den * coalesce(u.weight, 0)), 0) AS value,
    NULL AS t
FROM boot_groups AS r
JOIN world_weights AS w ON r.world = w.world
LEFT JOIN unit_weights AS u ON r.unit = u.unit AND u.draw = w.draw
WHERE r.gid IN (SELECT gid FROM boot_point WHERE NOT plain AND n <> 0)
GROUP BY r.gid, w.draw;
"""

ROWS = st.lists(
    st.tuples(
        st.integers(0, 3),  # group
        st.integers(0, 11),  # world
        st.sampled_from(["", "", "", "u1", "u2"]),
        st.integers(-3, 40),
        st.integers(0, 40),
    ),
    min_size=1,
    max_size=120,
)


def _table(rows: list[tuple[int, int, str, int, int]], fractional: bool) -> pa.Table:
    scale = 0.37 if fractional else 1
    return pa.table(
        {
            "group": [f"g{g}" for g, *_ in rows],
            "world": pa.array([100 + w for _, w, *_ in rows], pa.int32()),
            # a group is plain or a product sample, never both
            "unit": [unit if g % 2 else "" for g, _, unit, *_ in rows],
            "num": pa.array(
                [n * scale for *_, n, _ in rows], pa.float64() if fractional else pa.int64()
            ),
            "den": pa.array([d for *_, d in rows], pa.int64()),
            "lowest": pa.array([None] * len(rows), pa.float64()),
            "highest": pa.array([None] * len(rows), pa.float64()),
        }
    )


def _bits(rows: list[tuple[object, ...]]) -> list[tuple[object, ...]]:
    return [tuple(struct.pack("<d", v) if isinstance(v, float) else v for v in row) for row in rows]


def _both(table: pa.Table, resampling: Resampling) -> tuple[list[tuple[object, ...]], ...]:
    con = duckdb.connect(":memory:")
    con.execute("SET threads = 1")
    con.register("ratios_arrow", table)
    con.execute("CREATE TABLE ratios AS SELECT * FROM ratios_arrow")
    units = sorted({u for u in table["unit"].to_pylist() if u})
    register_weights(con, sorted(set(table["world"].to_pylist())), units, resampling)
    summarize(con, "ratios", ("group",), "numpy_out", resampling)
    new = con.sql('SELECT * FROM numpy_out ORDER BY "group"').fetchall()
    run(con, "bootstrap", ratios=identifiers(["ratios"]), keys=identifiers(["group"]),
        method=resampling.interval)  # fmt: skip
    con.execute(SQL_DRAWS)
    tail = resampling.tail
    run(
        con,
        "bootstrap_intervals",
        out=identifiers(["sql_out"]),
        key_values='any_value("group") AS "group"',
        low_q=repr(tail),
        high_q=repr(1 - tail),
        draws=str(resampling.draws),
        min_worlds="5",
    )
    old = con.sql('SELECT * FROM sql_out ORDER BY "group"').fetchall()
    return new, old


@settings(max_examples=40, deadline=None)
@given(ROWS, st.booleans(), st.integers(0, 2**31), st.sampled_from(["studentized", "percentile"]))
def test_the_numpy_draws_give_the_summary_the_sql_gave_bit_for_bit(
    rows: list[tuple[int, int, str, int, int]], fractional: bool, seed: int, interval: str
) -> None:
    resampling = Resampling(draws=300, seed=seed, interval=interval)  # type: ignore[arg-type]
    new, old = _both(_table(rows, fractional), resampling)
    assert _bits(new) == _bits(old)


def test_a_study_sized_summary_is_the_same_bit_for_bit() -> None:
    # more groups than one chunk of draws holds, fractional and whole numerators
    rows = [
        (g, w, "", (g * 7 + w * 3) % 11, (g + w) % 9 + 1) for g in range(1200) for w in range(20)
    ]
    for fractional in (False, True):
        new, old = _both(_table(rows, fractional), Resampling(draws=2000, seed=5))
        assert len(new) == 1200
        assert _bits(new) == _bits(old)


def test_whole_numerators_are_drawn_in_numpy_and_fractional_ones_in_sql() -> None:
    rows = [(0, w, "", w % 3, 2) for w in range(8)]
    for fractional, in_numpy in ((False, True), (True, False)):
        con = duckdb.connect(":memory:")
        con.register("ratios", _table(rows, fractional))
        register_weights(con, [100 + w for w in range(8)], [], Resampling(draws=50))
        run(con, "bootstrap", ratios=identifiers(["ratios"]), keys=identifiers(["group"]),
            method="studentized")  # fmt: skip
        assert (plain_draws(con) is not None) is in_numpy
