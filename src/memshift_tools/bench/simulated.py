"""Simulated studies whose population values are known, for measuring interval coverage.

A simulated study is one shift observed in a number of worlds, with a HoldMem cell that reports
invalidations (the key cell), a comparison system answering the same item-times, and a twin of
the key cell. Worlds differ as the study's do:

- each world's m, r, a and the comparison's accuracy are drawn around the population's: their
  logits are normal with a spread and a correlation (worlds where more changes are missed also
  repair and answer worse);
- each world's count of changed item-times is drawn from the counts the generator gives one
  shift over the 20 test worlds (`memshift stats`), so r's and a's denominators are small and
  uneven per world;
- the comparison system and the twin give the key cell's own answer with probability `shared`
  (the pairing of a paired contrast); otherwise the comparison is right with its world's
  accuracy and the twin with the key cell's world Update.

The truth is the population ratio each pooled estimate converges to as worlds are added: the
expected numerator of one world over its expected denominator. A world's count of changed
item-times is independent of its rates, so for m that is E[m_w], for r E[(1-m_w) r_w] /
E[1-m_w], for a E[m_w a_w] / E[m_w], for Update E[(1-m_w) r_w + m_w a_w]; the contrast with the
comparison is (1 - shared) (Update - E[o_w]) and the contrast with the twin is zero. The
expectations over the four-dimensional normal are computed by Gauss-Hermite quadrature.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

# Changed item-times per world of each shift, worlds 1000-1019 (memshift stats, generator 3.0.0).
CHANGED_PER_WORLD = {
    "def": (37, 44, 30, 23, 27, 21, 32, 32, 26, 42, 27, 23, 25, 23, 26, 29, 26, 28, 27, 25),
    "src": (61, 70, 56, 57, 58, 54, 56, 65, 59, 68, 56, 47, 53, 55, 48, 59, 55, 56, 54, 61),
    "del": (99, 104, 92, 90, 95, 86, 92, 100, 93, 106, 94, 89, 89, 87, 93, 94, 93, 90, 90, 90),
}
MEASURES = ("update", "m", "r", "a", "contrast", "null contrast")
SHARES = ("update", "m", "r", "a")
QUADRATURE_NODES = 24


@dataclass(frozen=True)
class Population:
    """The distribution of worlds: mean rates, their spread across worlds and their pairing."""

    m: float = 0.25
    r: float = 0.8
    a: float = 0.35
    other: float = 0.55  # the comparison system's accuracy on the same item-times
    spread: float = 0.6  # standard deviation of each rate's logit across worlds
    correlation: float = 0.3  # between the logits; m's runs the other way
    shared: float = 0.5  # chance that the comparison and the twin answer as the key cell

    def covariance(self) -> np.ndarray:
        direction = np.array([-1.0, 1.0, 1.0, 1.0])  # m, r, a, other
        correlation = np.full((4, 4), self.correlation) * np.outer(direction, direction)
        np.fill_diagonal(correlation, 1.0)
        return self.spread**2 * correlation

    def mean_logits(self) -> np.ndarray:
        rates = np.array([self.m, self.r, self.a, self.other])
        return np.log(rates / (1 - rates))


def _logistic(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def world_rates(
    population: Population, shape: tuple[int, ...], rng: np.random.Generator
) -> np.ndarray:
    """(*shape, 4) rates m, r, a, other of as many worlds."""
    root = np.linalg.cholesky(population.covariance())
    normal = rng.standard_normal((*shape, 4))
    return _logistic(population.mean_logits() + normal @ root.T)


def truth(population: Population, nodes: int = QUADRATURE_NODES) -> dict[str, float]:
    """The population ratio of every measure (module docstring), by product Gauss-Hermite
    quadrature over the normal logits."""
    points, weights = np.polynomial.hermite_e.hermegauss(nodes)
    grid = np.stack(np.meshgrid(*[points] * 4, indexing="ij"), axis=-1).reshape(-1, 4)
    mass = np.prod(np.stack(np.meshgrid(*[weights] * 4, indexing="ij"), -1).reshape(-1, 4), 1)
    mass = mass / mass.sum()
    root = np.linalg.cholesky(population.covariance())
    m, r, a, other = _logistic(population.mean_logits() + grid @ root.T).T

    def mean(values: np.ndarray) -> float:
        return float(mass @ values)

    update = mean((1 - m) * r + m * a)
    return {
        "update": update,
        "m": mean(m),
        "r": mean((1 - m) * r) / mean(1 - m),
        "a": mean(m * a) / mean(m),
        "contrast": (1 - population.shared) * (update - mean(other)),
        "null contrast": 0.0,
    }


@dataclass(frozen=True)
class Outcomes:
    """Item-level outcomes of `studies` simulated studies of `worlds` worlds each: arrays of
    shape (studies, worlds, most changed item-times), false beyond a world's own count."""

    changed: np.ndarray
    missed: np.ndarray
    key_right: np.ndarray
    other_right: np.ndarray
    twin_right: np.ndarray


def simulate(
    population: Population,
    changed_per_world: tuple[int, ...],
    studies: int,
    worlds: int,
    rng: np.random.Generator,
) -> Outcomes:
    m, r, a, other = np.moveaxis(world_rates(population, (studies, worlds), rng), -1, 0)
    counts = rng.choice(np.array(changed_per_world), size=(studies, worlds))
    changed = np.arange(counts.max()) < counts[..., None]
    draw = rng.random((5, *changed.shape))
    missed = changed & (draw[0] < m[..., None])
    key_right = changed & (draw[1] < np.where(missed, a[..., None], r[..., None]))
    update = ((1 - m) * r + m * a)[..., None]
    shared = draw[2] < population.shared
    other_right = changed & np.where(shared, key_right, draw[3] < other[..., None])
    twin_right = changed & np.where(shared, key_right, draw[4] < update)
    return Outcomes(changed, missed, key_right, other_right, twin_right)


def world_ratios(outcomes: Outcomes, measures: Sequence[str] = MEASURES) -> pa.Table:
    """Per study, measure and world: the numerator and denominator the report pools, in the
    layout `bootstrap.summarize` reads (keys study and measure)."""

    def count(values: np.ndarray) -> np.ndarray:
        return values.sum(axis=-1)

    changed = count(outcomes.changed)
    missed = count(outcomes.missed)
    right = count(outcomes.key_right)
    missed_right = count(outcomes.missed & outcomes.key_right)
    pairs = {
        "update": (right, changed),
        "m": (missed, changed),
        "r": (right - missed_right, changed - missed),
        "a": (missed_right, missed),
        "contrast": (right - count(outcomes.other_right), changed),
        "null contrast": (count(outcomes.twin_right) - right, changed),
    }
    study, world = (axis.ravel() for axis in np.indices(changed.shape))
    rows = study.size * len(measures)
    names = np.repeat(np.array(list(measures)), study.size)
    return pa.table(
        {
            "study": pa.array(np.tile(study, len(measures)), pa.int32()),
            "measure": pa.array(names),
            "world": pa.array(np.tile(world, len(measures)), pa.int32()),
            "unit": pa.array(np.full(rows, "")),
            "num": pa.array(np.concatenate([pairs[m][0].ravel() for m in measures]), pa.int64()),
            "den": pa.array(np.concatenate([pairs[m][1].ravel() for m in measures]), pa.int64()),
            "lowest": pa.array(np.where(np.isin(names, SHARES), 0.0, -1.0)),
            "highest": pa.array(np.ones(rows)),
        }
    )


KEY = "holdmem-d0-source"
OTHER = "bm25"
TWIN = "twin"


def item_times(outcomes: Outcomes) -> pa.Table:
    """The same outcomes as an item_times table (one row per system and changed item-time),
    each study a branch `sim<k>`: the key cell reports invalidations, the others do not."""
    study, world, item = np.nonzero(outcomes.changed)
    rows = len(study)
    branch = np.char.add("sim", study.astype(str))
    probe = np.char.add(np.char.add(branch, "-"), (world * 1000 + item).astype(str))

    def system(name: str, correct: np.ndarray, detected: np.ndarray | None) -> pa.Table:
        detection = "source" if detected is not None else ""
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
                "correct": pa.array(correct[study, world, item]),
                "reports": pa.array(np.full(rows, detected is not None)),
                "detected": pa.nulls(rows, pa.bool_())
                if detected is None
                else pa.array(detected[study, world, item]),
                # every item-time changed at checkpoint 1: the two countings agree
                "detected_since_fork": pa.nulls(rows, pa.bool_())
                if detected is None
                else pa.array(detected[study, world, item]),
                "yielded": pa.nulls(rows, pa.bool_()),
                "store_correct": pa.nulls(rows, pa.bool_()),
            }
        )

    return pa.concat_tables(
        [
            system(KEY, outcomes.key_right, ~outcomes.missed),
            system(OTHER, outcomes.other_right, None),
            system(TWIN, outcomes.twin_right, None),
        ]
    )
