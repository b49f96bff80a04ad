"""Simulated item-time tables with known per-world m, r and a, for testing the estimators."""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
import numpy as np
import pyarrow as pa


@dataclass(frozen=True)
class Truth:
    m: float = 0.3
    r: float = 0.8
    a: float = 0.4
    other: float = 0.5  # accuracy of the comparison system on the same item-times
    concentration: float = 20.0

    @property
    def update(self) -> float:
        return (1 - self.m) * self.r + self.m * self.a

    @property
    def effect(self) -> float:
        return self.update - self.other


def _beta(rng: np.random.Generator, mean: float, concentration: float, size: int) -> np.ndarray:
    return rng.beta(mean * concentration, (1 - mean) * concentration, size=size)


def item_times(truth: Truth, simulations: int, worlds: int, per_world: int, seed: int) -> pa.Table:
    """Changed item-times of a key cell and a comparison system; each simulation is a branch.

    Per world, m, r, a and the comparison's accuracy are drawn independently around the truth,
    so the pooled ratios estimate exactly the truth's m, r, a, Update and Update difference."""
    rng = np.random.default_rng(seed)
    shape = (simulations, worlds)
    cells = simulations * worlds
    m_w, r_w, a_w, o_w = (
        _beta(rng, mean, truth.concentration, cells).reshape(shape)
        for mean in (truth.m, truth.r, truth.a, truth.other)
    )
    detected = rng.random((*shape, per_world)) >= m_w[..., None]
    right = np.where(
        detected,
        rng.random((*shape, per_world)) < r_w[..., None],
        rng.random((*shape, per_world)) < a_w[..., None],
    )
    other_right = rng.random((*shape, per_world)) < o_w[..., None]
    sim, world, item = np.indices((*shape, per_world)).reshape(3, -1)
    rows = len(sim)
    branch = np.char.add("sim", sim.astype(str))
    probe = np.char.add(np.char.add(branch, "-"), (world * per_world + item).astype(str))

    def system(name: str, detection: str, correct: np.ndarray, det: np.ndarray | None) -> pa.Table:
        return pa.table(
            {
                "world": pa.array(world, pa.int32()),
                "branch": pa.array(branch),
                "system": pa.array([name] * rows),
                "repair": pa.array(["0" if detection else ""] * rows),
                "detection": pa.array([detection] * rows),
                "probe_id": pa.array(probe),
                "unit": pa.array([""] * rows),
                "item_id": pa.array(np.char.add("item", item.astype(str))),
                "checkpoint": pa.array(np.ones(rows), pa.int8()),
                "item_class": pa.array(["other"] * rows),
                "cause": pa.array(["caused"] * rows),
                "clock_alone": pa.array(np.zeros(rows, bool)),
                "changed": pa.array(np.ones(rows, bool)),
                "unchanged": pa.array(np.zeros(rows, bool)),
                "before_shift": pa.array(np.zeros(rows, bool)),
                "premise": pa.array(np.zeros(rows, bool)),
                "accepted_premise": pa.array(np.zeros(rows, bool)),
                "correct": pa.array(correct.reshape(-1)),
                "reports": pa.array(np.full(rows, det is not None)),
                "detected": pa.nulls(rows, pa.bool_())
                if det is None
                else pa.array(det.reshape(-1)),
                "yielded": pa.nulls(rows, pa.bool_()),
            }
        )

    return pa.concat_tables(
        [
            system("holdmem-d0-source", "source", right, detected),
            system("bm25", "", other_right, None),
        ]
    )


def load(con: duckdb.DuckDBPyConnection, table: pa.Table) -> None:
    con.register("simulated", table)
    con.execute("CREATE OR REPLACE TABLE item_times AS SELECT * FROM simulated")
    con.unregister("simulated")
