"""Benchmark: how often the report's 95% world-bootstrap intervals cover the truth.

Simulated studies of 20 worlds (`memshift_tools.bench.simulated`), each with a known population
value of every measure, go through the report's own bootstrap (`analysis.bootstrap.summarize`, in
DuckDB); coverage is the share of studies whose interval holds the truth, with its Monte-Carlo
standard error. Studies are simulated in batches, each with its own resampling seed, so that no one
set of bootstrap weights serves every study.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import duckdb
import numpy as np
import pyarrow as pa

from memshift.analysis.bootstrap import Interval, Resampling, register_weights, summarize
from memshift.rng import stream
from memshift_tools.bench.simulated import (
    CHANGED_PER_WORLD,
    MEASURES,
    Population,
    simulate,
    truth,
    world_ratios,
)

WORLDS = 20
BATCH = 500


@dataclass(frozen=True)
class Coverage:
    covered: int
    studies: int
    width: float  # mean interval width

    @property
    def share(self) -> float:
        return self.covered / self.studies

    @property
    def standard_error(self) -> float:
        """Monte-Carlo standard error of the share over independent studies."""
        return math.sqrt(self.share * (1 - self.share) / self.studies)

    def __add__(self, other: Coverage) -> Coverage:
        studies = self.studies + other.studies
        width = (self.width * self.studies + other.width * other.studies) / studies
        return Coverage(self.covered + other.covered, studies, width)


def intervals(table: pa.Table, resampling: Resampling, worlds: int) -> dict[str, np.ndarray]:
    """Measure, estimate, low and high of every (study, measure) group of `table`."""
    con = duckdb.connect(":memory:")
    con.execute("SET threads TO 2")
    con.register("simulated_arrow", table)
    con.execute("CREATE TABLE simulated AS SELECT * FROM simulated_arrow")
    register_weights(con, list(range(worlds)), [], resampling)
    summarize(con, "simulated", ("study", "measure"), "summary", resampling)
    found = con.sql("SELECT measure, estimate, low, high FROM summary").to_arrow_table()
    con.close()
    return {name: found[name].to_numpy(zero_copy_only=False) for name in found.column_names}


def measure(
    population: Population,
    design: str,
    seed: int,
    studies: int,
    methods: Sequence[Interval] = ("studentized",),
    measures: Sequence[str] = MEASURES,
    draws: int = 2000,
    worlds: int = WORLDS,
) -> dict[Interval, dict[str, Coverage]]:
    """Coverage of each measure under each interval method over `studies` simulated studies of
    one shift's design; every method sees the same studies and the same weights."""
    target = truth(population)
    rng = stream(seed, f"coverage-{design}")
    found: dict[Interval, dict[str, Coverage]] = {
        method: {name: Coverage(0, 0, 0.0) for name in measures} for method in methods
    }
    for batch, start in enumerate(range(0, studies, BATCH)):
        size = min(BATCH, studies - start)
        table = world_ratios(
            simulate(population, CHANGED_PER_WORLD[design], size, worlds, rng), measures
        )
        for method in methods:
            resampling = Resampling(draws=draws, seed=seed * 1000 + batch, interval=method)
            rows = intervals(table, resampling, worlds)
            for name in measures:
                picked = rows["measure"] == name
                low, high = (rows[end][picked].astype(float) for end in ("low", "high"))
                covered = int(np.sum((low <= target[name]) & (target[name] <= high)))
                width = float(np.mean(high - low))
                found[method][name] += Coverage(covered, size, width)
    return found


DESIGNS = ("def", "src", "del")
SEEDS = (1, 2, 3)
STUDIES = 3000
METHODS: tuple[Interval, ...] = ("studentized", "percentile")
STUDY_LIKE = Population()
HARDER = Population(m=0.1, r=0.9, a=0.3, other=0.6, spread=1.0)
HARDER_SEED = 4
COMMAND = "python -m memshift_tools.bench --only coverage --out docs/benchmarks.md"


def _pct(value: float) -> str:
    return f"{100 * value:.1f}"


def _table(
    runs: dict[tuple[str, int], dict[Interval, dict[str, Coverage]]], method: Interval
) -> list[str]:
    columns = sorted(runs, key=lambda key: (DESIGNS.index(key[0]), key[1]))
    header = [f"{design} seed {seed}" for design, seed in columns]
    lines = [
        "| measure | " + " | ".join(header) + " | pooled ± MC SE | mean width |",
        "|---|" + "---|" * (len(header) + 2),
    ]
    for name in MEASURES:
        cells = [runs[key][method][name] for key in columns]
        pooled = sum(cells[1:], cells[0])
        lines.append(
            f"| {name} | "
            + " | ".join(_pct(c.share) for c in cells)
            + f" | {_pct(pooled.share)} ± {100 * pooled.standard_error:.2f} | "
            f"{_pct(pooled.width)} pp |"
        )
    return lines


def _population(population: Population) -> str:
    return (
        f"m {population.m}, r {population.r}, a {population.a}, comparison accuracy "
        f"{population.other}; logit spread across worlds {population.spread}, correlation "
        f"{population.correlation}; shared answers {population.shared}"
    )


def section() -> list[str]:
    start = time.perf_counter()
    study_like = {
        (design, seed): measure(STUDY_LIKE, design, seed, STUDIES, METHODS)
        for design in DESIGNS
        for seed in SEEDS
    }
    harder = {
        (design, HARDER_SEED): measure(HARDER, design, HARDER_SEED, STUDIES, METHODS)
        for design in DESIGNS
    }
    minutes = (time.perf_counter() - start) / 60
    counts = ", ".join(
        f"{design} {min(CHANGED_PER_WORLD[design])}-{max(CHANGED_PER_WORLD[design])}"
        for design in DESIGNS
    )
    standard_errors = [
        c.standard_error
        for found in study_like.values()
        for by_measure in found.values()
        for c in by_measure.values()
    ]
    lines = [
        "## Coverage of the report's 95% intervals",
        "",
        f"Command: `{COMMAND}` (also part of `make bench`; {minutes:.0f} min here). "
        f"{STUDIES:,} simulated studies of {WORLDS} worlds per shift design and seed "
        "(`memshift_tools.bench.simulated`), each through the report's own bootstrap "
        f"({Resampling().draws} draws in DuckDB, one resampling seed per {BATCH} studies); "
        "coverage is the share of studies whose interval holds the population value, in "
        "percent. A design draws each world's count of changed item-times from the counts the "
        f"generator gives that shift in the 20 test worlds ({counts}); worlds differ in their "
        "rates (logit-normal). The population value of a measure is the expected numerator of a "
        "world over its expected denominator (Gauss-Hermite quadrature); `contrast` is a paired "
        "difference in Update against a comparison system, `null contrast` one whose population "
        "value is zero. Monte-Carlo standard error of a coverage per seed "
        f"{100 * min(standard_errors):.2f}-{100 * max(standard_errors):.2f} pp.",
        "",
        f"Study-like population ({_population(STUDY_LIKE)}).",
        "",
        "Studentized (bootstrap-t), what the report uses:",
        "",
        *_table(study_like, "studentized"),
        "",
        "Percentile of the draws, what the report used before:",
        "",
        *_table(study_like, "percentile"),
        "",
        f"A harder population, rates nearer their bounds and worlds further apart "
        f"({_population(HARDER)}), one seed per design:",
        "",
        "Studentized:",
        "",
        *_table(harder, "studentized"),
        "",
        "Percentile:",
        "",
        *_table(harder, "percentile"),
        "",
    ]
    return lines
