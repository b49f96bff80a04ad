"""The plain groups' bootstrap draws, computed in numpy, are the doubles the SQL computed: the
whole summary, bit for bit, equals the one the SQL gives (bootstrap_plain_draws.sql, which the
numpy draws replace where they are exact), on whole and fractional numerators, product samples and
degenerate groups."""

from __future__ import annotations

import struct
from unittest.mock import patch

import duckdb
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from memshift.analysis import bootstrap
from memshift.analysis.bootstrap import Resampling, plain_draws, register_weights, summarize
from memshift.analysis.sqlfiles import identifiers, run

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


def _summary(table: pa.Table, resampling: Resampling) -> list[tuple[object, ...]]:
    con = duckdb.connect(":memory:")
    con.execute("SET threads = 1")
    con.register("ratios_arrow", table)
    con.execute("CREATE TABLE ratios AS SELECT * FROM ratios_arrow")
    units = sorted({u for u in table["unit"].to_pylist() if u})
    register_weights(con, sorted(set(table["world"].to_pylist())), units, resampling)
    summarize(con, "ratios", ("group",), "out", resampling)
    return con.sql('SELECT * FROM out ORDER BY "group"').fetchall()


def _both(table: pa.Table, resampling: Resampling) -> tuple[list[tuple[object, ...]], ...]:
    """The summary with the plain draws in numpy where they are exact, and all in SQL (the
    statement the numpy draws replaced, which fractional numerators still take)."""
    with patch.object(bootstrap, "plain_draws", lambda con: None):
        in_sql = _summary(table, resampling)
    return _summary(table, resampling), in_sql


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
