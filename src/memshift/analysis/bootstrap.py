"""The world bootstrap: resampling weights, and intervals computed in DuckDB.

A draw resamples the study's worlds with replacement; each world's weight is how often it was
drawn, so a draw's estimate of a ratio is a weighted sum of per-world numerators over the same
weighted sum of denominators. A product sample also resamples a second unit (the items, for the
writer's programs, which are one set shared by every world) independently of the worlds.

Intervals are studentized (bootstrap-t): each draw's distance from the estimate is divided by
that draw's own linearised standard error of the ratio, and the quantiles of those distances,
times the estimate's standard error, give the interval. Over 20 worlds they cover the truth at
their nominal level, where percentile intervals of the draws covered about 92-93% at 95%
(docs/benchmarks.md, "Coverage of the report's 95% intervals"). Product samples keep the
percentile interval: studentizing them would need a standard error over worlds and units both,
which that benchmark does not cover. Below MIN_WORLDS worlds with item-times a group gets an
estimate but no interval and no p-value.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import duckdb
import numpy as np
import pyarrow as pa

from memshift.analysis.sqlfiles import identifiers, run
from memshift.rng import stream

MIN_WORLDS = 5
Interval = Literal["studentized", "percentile"]
INTERVALS: tuple[Interval, ...] = ("studentized", "percentile")


@dataclass(frozen=True)
class Resampling:
    draws: int = 2000
    level: float = 0.95
    seed: int = 0
    interval: Interval = "studentized"  # "percentile": what it replaced, for the benchmark

    @classmethod
    def of_report(cls, report: Mapping[str, Any]) -> Resampling:
        """The world bootstrap a study's `report:` section asks for (its draws and seed)."""
        return cls(draws=report["draws"], seed=report["seed"])

    def __post_init__(self) -> None:
        if self.interval not in INTERVALS:
            raise ValueError(f"interval must be one of {INTERVALS}, got {self.interval!r}")
        if self.draws < 1:
            raise ValueError(f"bootstrap draws must be at least 1, got {self.draws}")
        if not 0 < self.level < 1:
            raise ValueError(f"interval level must lie strictly between 0 and 1, got {self.level}")

    @property
    def tail(self) -> float:
        """The share of draws beyond each end of a percentile interval (0.025, not
        0.025000000000000022)."""
        return round((1 - self.level) / 2, 12)


def multinomial_weights(units: int, draws: int, rng: np.random.Generator) -> np.ndarray:
    """(draws, units) counts: how often each unit was picked in `units` picks with replacement."""
    if units == 0:
        return np.zeros((draws, 0), dtype=np.int64)
    return rng.multinomial(units, np.full(units, 1.0 / units), size=draws)


def weight_matrix(units: Sequence[object], resampling: Resampling, name: str) -> np.ndarray:
    """The weights of `units` (in their sorted order) for every draw, from a named stream."""
    rng = stream(resampling.seed, f"bootstrap-{name}")
    return multinomial_weights(len(units), resampling.draws, rng)


def _weight_table(units: Sequence[object], weights: np.ndarray, unit_type: pa.DataType) -> pa.Table:
    draws, picked = np.nonzero(weights)
    return pa.table(
        {
            "draw": pa.array(draws, pa.int32()),
            "unit": pa.array([units[i] for i in picked], unit_type),
            "weight": pa.array(weights[draws, picked], pa.int32()),
        }
    )


def register_weights(
    con: duckdb.DuckDBPyConnection,
    worlds: Sequence[int],
    units: Sequence[str],
    resampling: Resampling,
) -> None:
    """Create the tables world_weights(draw, world, weight), unit_weights(draw, unit, weight),
    world_positions(world, pos) and world_vectors(draw, weights): one draw's world weights as a
    list in the order of the positions."""
    world_list = sorted(worlds)
    unit_list = sorted(units)
    world_matrix = weight_matrix(world_list, resampling, "worlds")
    world_table = _weight_table(world_list, world_matrix, pa.int32()).rename_columns(
        ["draw", "world", "weight"]
    )
    positions = pa.table(
        {
            "world": pa.array(world_list, pa.int32()),
            "pos": pa.array(range(len(world_list)), pa.int32()),
        }
    )
    vectors = pa.table(
        {
            "draw": pa.array(range(resampling.draws), pa.int32()),
            "weights": pa.array(world_matrix.astype(np.float64).tolist(), pa.list_(pa.float64())),
        }
    )
    unit_table = _weight_table(
        unit_list, weight_matrix(unit_list, resampling, "units"), pa.string()
    )
    for name, table in (
        ("world_weights", world_table),
        ("unit_weights", unit_table),
        ("world_positions", positions),
        ("world_vectors", vectors),
    ):
        con.register(f"{name}_arrow", table)
        con.execute(f"CREATE OR REPLACE TABLE {name} AS SELECT * FROM {name}_arrow")
        con.unregister(f"{name}_arrow")


def summarize(
    con: duckdb.DuckDBPyConnection,
    ratios: str,
    keys: Sequence[str],
    out: str,
    resampling: Resampling,
) -> None:
    """Table `out`: per group of `keys`, the pooled ratio, its interval, a one-sided bootstrap
    p-value against zero, and the pooled numerator, denominator and the count of worlds with a
    nonzero denominator (no interval or p-value below MIN_WORLDS of them).

    `ratios` has the columns `keys`, world, unit, num, den, lowest and highest: the least and
    greatest value the ratio can take (null: unbounded), which clip the interval."""
    quoted = [identifiers([key]) for key in keys]
    tail = resampling.tail
    run(con, "bootstrap", ratios=identifiers([ratios]), keys=identifiers(list(keys)),
        method=resampling.interval)  # fmt: skip
    con.execute("CREATE OR REPLACE TEMP TABLE boot_drawn (gid BIGINT, value DOUBLE, t DOUBLE)")
    chunks = plain_draws(con)
    if chunks is None:
        run(con, "bootstrap_plain_draws")
    for chunk in chunks or ():
        con.register("boot_plain_drawn", chunk)
        con.execute("INSERT INTO boot_drawn SELECT * FROM boot_plain_drawn")
        con.unregister("boot_plain_drawn")
    run(con, "bootstrap_products")
    run(
        con,
        "bootstrap_intervals",
        out=identifiers([out]),
        key_values=", ".join(f"any_value({name}) AS {name}" for name in quoted),
        low_q=repr(tail),
        high_q=repr(1 - tail),
        draws=str(resampling.draws),
        min_worlds=str(MIN_WORLDS),
    )


# about 2 million draws of groups at a time: a few hundred megabytes of arrays
_DRAWS_AT_ONCE = 2_000_000
# every sum of products of whole numbers below this bound is exact in a double, in any order
_EXACT = 2.0**53


def plain_draws(con: duckdb.DuckDBPyConnection) -> Iterator[pa.Table] | None:
    """The draws of the plain groups of bootstrap.sql (boot_point, boot_vectors), a chunk of
    groups at a time: per group and draw with a nonzero weighted denominator, the draw's ratio
    and, for a studentized group, its distance from the estimate in units of the draw's own
    standard error (else null). None where a group's vectors are not whole numbers small enough
    for every sum of products to be exact: bootstrap_plain_draws.sql computes those.

    This is the arithmetic of bootstrap_plain_draws.sql, operation for operation, so every value
    is the same double: its dot products (DuckDB fuses each multiply-add) are exact here, and
    then equal to a matrix product's in any order of summation."""
    weights = _world_weights(con)
    vectors = con.sql("SELECT * FROM boot_vectors").to_arrow_table()
    values = [vectors[name].to_numpy() for name in _VECTORS]
    largest = max((float(np.abs(v).max(initial=0)) for v in values), default=0.0)
    if any(not np.array_equal(v, np.round(v)) for v in values) or (
        largest * float(weights.sum(axis=1).max(initial=0)) >= _EXACT
    ):
        return None
    point = con.sql(
        "SELECT gid, studentized, n::DOUBLE AS n, numerator::DOUBLE AS numerator, estimate, se "
        "FROM boot_point WHERE plain AND n <> 0 ORDER BY gid"
    ).to_arrow_table()
    return _chunks(weights, point, vectors["gid"].to_numpy(), vectors["pos"].to_numpy(), values)


_VECTORS = ("nums", "dens", "nn", "nd", "dd")


def _chunks(
    weights: np.ndarray,
    point: pa.Table,
    vector_gids: np.ndarray,
    positions: np.ndarray,
    values: list[np.ndarray],
) -> Iterator[pa.Table]:
    draws, worlds = weights.shape
    gids = point["gid"].to_numpy()
    columns = np.searchsorted(gids, vector_gids)
    step = max(1, _DRAWS_AT_ONCE // max(draws, 1))
    for start in range(0, len(gids), step):
        stop = min(start + step, len(gids))
        inside = (columns >= start) & (columns < stop)
        sums = []
        for value in values:
            matrix = np.zeros((worlds, stop - start))
            matrix[positions[inside], columns[inside] - start] = value[inside]
            # + 0.0: a sum that starts from zero, as DuckDB's does, is never negative zero
            sums.append(weights @ matrix + 0.0)
        yield _studentized(point.slice(start, stop - start), *sums)


def _world_weights(con: duckdb.DuckDBPyConnection) -> np.ndarray:
    """(draws, worlds): each draw's world weights, in the order of the worlds' positions."""
    vectors = con.sql("SELECT weights FROM world_vectors ORDER BY draw").to_arrow_table()
    flat = vectors["weights"].combine_chunks().flatten().to_numpy()
    return flat.reshape(vectors.num_rows, -1) if vectors.num_rows else flat.reshape(0, 0)


def _studentized(
    point: pa.Table,
    sn: np.ndarray,
    sd: np.ndarray,
    snn: np.ndarray,
    snd: np.ndarray,
    sdd: np.ndarray,
) -> pa.Table:
    n, numerator, estimate = (
        point[name].to_numpy()[None, :] for name in ("n", "numerator", "estimate")
    )
    se = point["se"].to_numpy(zero_copy_only=False)[None, :]
    has_se = point["se"].is_valid().to_numpy(zero_copy_only=False)[None, :]
    studentized = point["studentized"].to_numpy(zero_copy_only=False)[None, :]
    gid = np.broadcast_to(point["gid"].to_numpy()[None, :], sd.shape)
    kept = sd != 0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        value = sn / sd
        variance = np.maximum(snn - 2 * value * snd + value * value * sdd, 0) / (sd * sd)
        on_estimate = sn * n == numerator * sd
        spread = variance > 0
        t = np.where(
            on_estimate,
            0.0,
            np.where(spread, (value - estimate) / np.sqrt(variance), (value - estimate) / se),
        )
    t_null = ~studentized | (~on_estimate & ~spread & ~has_se)
    return pa.table(
        {
            "gid": pa.array(gid[kept], pa.int64()),
            "value": pa.array(value[kept], pa.float64()),
            "t": pa.array(t[kept], pa.float64(), mask=np.broadcast_to(t_null, sd.shape)[kept]),
        }
    )


def quantity_table(
    con: duckdb.DuckDBPyConnection,
    values: str,
    keys: Sequence[str],
    schema: pa.Schema,
    resampling: Resampling,
) -> pa.Table:
    """Table of `schema` (the `keys`, quantity, the estimate, numerator, n and worlds) from
    `values`, one row per item-time and quantity (`keys`, world, quantity, value, lowest,
    highest): each quantity's mean value over the item-times, with its world-bootstrap
    interval."""
    ratios, summary = f"{values}_ratios", f"{values}_summary"
    run(
        con,
        "item_time_ratios",
        out=identifiers([ratios]),
        source=identifiers([values]),
        keys=identifiers(list(keys)),
    )
    summarize(con, ratios, [*keys, "quantity"], summary, resampling)
    columns = identifiers([*keys, "quantity"])
    return (
        con.sql(
            f"SELECT {columns}, estimate, low, high, numerator, n, worlds "
            f"FROM {identifiers([summary])} ORDER BY {columns}"
        )
        .to_arrow_table()
        .cast(schema)
    )
