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

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

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
    run(
        con,
        "bootstrap",
        out=identifiers([out]),
        ratios=identifiers([ratios]),
        keys=identifiers(list(keys)),
        key_values=", ".join(f"any_value({name}) AS {name}" for name in quoted),
        low_q=repr(tail),
        high_q=repr(1 - tail),
        draws=str(resampling.draws),
        method=resampling.interval,
        min_worlds=str(MIN_WORLDS),
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
