"""Update, Stability, m, r, a and the rest, by system, shift, item class, cause and checkpoint.

Every measure is a ratio of item-time counts pooled over worlds. On the changed item-times of a
system that reports invalidations, Update = (1 - m) r + m a holds by construction; `check_identity`
verifies it on every printed row all the same, since the report's claim rests on it; and, for a
HoldMem cell, the split of r into its stored state and the reader, r = r_store u + (1 - r_store) l.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import duckdb
import pyarrow as pa

from memshift import schemas
from memshift.analysis.bootstrap import Resampling, register_weights, summarize
from memshift.analysis.sqlfiles import run
from memshift.errors import MemshiftError

MEASURE_KEYS = ("system", "branch", "item_class", "cause", "checkpoint", "measure")
IDENTITY_TOLERANCE = 1e-12


def compute(con: duckdb.DuckDBPyConnection, resampling: Resampling) -> None:
    """Tables world_counts, measure_ratios and measure_summary from item_times; then the floors'
    rows of measure_summary, from floor_item_times where there is one (`frame.open_study`).

    The floors (`memshift.scoring.floors`) are counted and summarized in a database of their own,
    with the same SQL and the same draws, and only their summary joins the study's: every other
    table is the one a study without floors computes, down to the order in which a float sum adds
    its terms."""
    worlds, units = _summarized(con, resampling)
    [(apart,)] = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'floor_item_times'"
    ).fetchall()
    if not apart:
        return
    floors = con.sql("SELECT * FROM floor_item_times").to_arrow_table()
    if floors.num_rows:
        con.register("floor_summary_arrow", _floor_summary(floors, worlds, units, resampling))
        con.execute("INSERT INTO measure_summary BY NAME SELECT * FROM floor_summary_arrow")
        con.unregister("floor_summary_arrow")


def _summarized(
    con: duckdb.DuckDBPyConnection,
    resampling: Resampling,
    worlds: list[int] | None = None,
    units: list[str] | None = None,
) -> tuple[list[int], list[str]]:
    """world_counts, measure_ratios, the weights (of `worlds` and `units`, by default those of
    item_times) and measure_summary; returns the worlds and units weighted."""
    run(con, "world_counts")
    run(con, "measure_ratios")
    if worlds is None:
        worlds = [w for (w,) in con.execute("SELECT DISTINCT world FROM item_times").fetchall()]
    if units is None:
        units = [
            u
            for (u,) in con.execute(
                "SELECT DISTINCT unit FROM item_times WHERE unit <> ''"
            ).fetchall()
        ]
    register_weights(con, worlds, units, resampling)
    summarize(con, "measure_ratios", MEASURE_KEYS, "measure_summary", resampling)
    return worlds, units


def _floor_summary(
    floors: pa.Table, worlds: list[int], units: list[str], resampling: Resampling
) -> pa.Table:
    """measure_summary of the floors' item-times, in a fresh database, on the draws of the
    study's `worlds` and `units` (those of its systems)."""
    apart = duckdb.connect(":memory:")
    apart.execute("SET threads TO 1")  # as `open_study`'s: sums in one order
    apart.execute("SET enable_progress_bar = false")
    apart.register("floors", floors)
    apart.execute("CREATE TABLE item_times AS SELECT * FROM floors")
    apart.unregister("floors")
    # the same set as the systems' in any study: a world or unit only a floor has would change
    # every draw's weights
    found = {w for (w,) in apart.execute("SELECT DISTINCT world FROM item_times").fetchall()}
    more = {u for (u,) in apart.execute("SELECT DISTINCT unit FROM item_times").fetchall() if u}
    _summarized(apart, resampling, sorted(found | set(worlds)), sorted(more | set(units)))
    summary = apart.sql("SELECT * FROM measure_summary").to_arrow_table()
    apart.close()
    return summary


def measures_table(con: duckdb.DuckDBPyConnection) -> pa.Table:
    return (
        con.sql(
            """
        SELECT system, branch, item_class, cause, measure, estimate, low, high,
            numerator::BIGINT AS numerator, n::BIGINT AS n, worlds
        FROM measure_summary WHERE checkpoint = -1
        ORDER BY system, branch, item_class, cause, measure
        """
        )
        .to_arrow_table()
        .cast(schemas.MEASURES)
    )


def by_checkpoint_table(con: duckdb.DuckDBPyConnection) -> pa.Table:
    return (
        con.sql(
            """
        SELECT system, branch, checkpoint::TINYINT AS checkpoint, measure, estimate, low, high,
            numerator::BIGINT AS numerator, n::BIGINT AS n, worlds
        FROM measure_summary WHERE checkpoint >= 0
        ORDER BY system, branch, checkpoint, measure
        """
        )
        .to_arrow_table()
        .cast(schemas.MEASURES_BY_CHECKPOINT)
    )


def decomposed(m: float, r: float | None, a: float | None) -> float:
    """(1 - m) r + m a, where a term whose weight is zero counts as zero even if undefined."""
    detected = 0.0 if m == 1 else (1 - m) * _defined(r, "r")
    missed = 0.0 if m == 0 else m * _defined(a, "a")
    return detected + missed


def _defined(value: float | None, name: str) -> float:
    if value is None or math.isnan(value):
        raise MemshiftError(f"{name} is undefined where its weight is not zero")
    return value


def check_identity(rows: Iterable[Mapping[str, object]]) -> int:
    """Verify Update = (1 - m) r + m a on every group that has m; return how many were checked.

    `rows` are MEASURES-like rows; they are grouped by everything but the measure."""
    groups: dict[tuple[object, ...], dict[str, Mapping[str, object]]] = {}
    for row in rows:
        key = tuple(row[k] for k in ("system", "branch", "item_class", "cause"))
        groups.setdefault(key, {})[str(row["measure"])] = row
    checked = 0
    for key, found in groups.items():
        if "m" not in found or found["update"]["estimate"] is None:
            continue
        parts = {name: found[name] for name in ("update", "m", "r", "a")}
        counts = {name: (row["numerator"], row["n"]) for name, row in parts.items()}
        if (
            counts["update"][0] != counts["r"][0] + counts["a"][0]
            or counts["m"][0] != counts["a"][1]
        ):
            raise MemshiftError(f"identity counts do not add up for {key}: {counts}")
        update = float(parts["update"]["estimate"])  # type: ignore[arg-type]
        m = float(parts["m"]["estimate"])  # type: ignore[arg-type]
        right = decomposed(m, parts["r"]["estimate"], parts["a"]["estimate"])  # type: ignore[arg-type]
        if abs(update - right) > IDENTITY_TOLERANCE:
            raise MemshiftError(
                f"Update = (1 - m) r + m a fails for {key}: {update!r} against {right!r}"
            )
        if "r_store" in found:
            _check_store_split(key, found)
        checked += 1
    return checked


def _check_store_split(key: tuple[object, ...], found: Mapping[str, Mapping[str, object]]) -> None:
    """r = r_store u + (1 - r_store) l, in counts and in shares: the stored state and the reader
    behind r."""
    r, r_store, u, lower = (found[name] for name in ("r", "r_store", "u", "l"))
    if (
        r["numerator"] != u["numerator"] + lower["numerator"]  # type: ignore[operator]
        or r_store["numerator"] != u["n"]
        or r["n"] != r_store["n"]
        or lower["n"] != r["n"] - r_store["numerator"]  # type: ignore[operator]
    ):
        raise MemshiftError(f"store/reader counts do not add up for {key}")
    if r["estimate"] is None:
        return
    share = float(r_store["estimate"])  # type: ignore[arg-type]
    right = decomposed(1 - share, u["estimate"], lower["estimate"])  # type: ignore[arg-type]
    if abs(float(r["estimate"]) - right) > IDENTITY_TOLERANCE:  # type: ignore[arg-type]
        raise MemshiftError(
            f"r = r_store u + (1 - r_store) l fails for {key}: {r['estimate']!r} against {right!r}"
        )
