"""The validation grid's checks: each writer's m, r, a, delta yield and B×D, as injected (predicted
from its rates by `grid_prediction`) against what its run measures.

Update = (1 - m)·r + m·a in every cell: m is the share of changed item-times the detection
missed, r the share right among the detected ones, a among the missed ones. m never depends on
the writer (checked item-time by item-time), so it is known for every writer: 0 for the source
key, 1 for the append-only cell, the blind share for the leaky control. r and a are predicted
item-time by item-time from the writer's error and overlook rates; Update and B×D follow from
them by the identity, B×D = U(source, D=1) - U(append, D=1) - U(source, D=0) + U(append, D=0).

A measured value's interval is paired with its prediction: the world bootstrap of measured minus
predicted on the same worlds (the two share each world's items and the anchors' outcomes, so what
is left is the writer's own coin flips), added to the prediction. The injected value lies inside
exactly when that difference's interval holds zero. A value is tested only where at least
`MIN_ITEM_TIMES` item-times can come out either way under the writer's rates: with fewer, every
world can show the same difference and the interval collapses to a point.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from memshift.analysis.bootstrap import Resampling, weight_matrix
from memshift.errors import MemshiftError
from memshift.studies.validation.analysis import MIN_ITEM_TIMES, SHIFTS
from memshift.studies.validation.composite_analysis import Estimate, Sums, Values, studentized
from memshift.studies.validation.grid_design_analysis import GridWriter
from memshift.studies.validation.grid_outcomes_analysis import ItemTimes, check_aligned
from memshift.studies.validation.grid_prediction_analysis import (
    Corners,
    overlooked_throughout,
    predicted_right,
    predicted_yield,
)
from memshift.vocabulary import LEAKY_BLIND_SHARE, cell_system
from memshift.world.items import ITEM_GROUPS

SOURCE, APPEND, LEAKY = "source", "append", "leaky"
# the anchors' (error, overlook), in the order of `Corners`: wrong, blind, both
ANCHOR_CORNERS = ((1.0, 0.0), (0.0, 1.0), (1.0, 1.0))
KNOWN_MISSES = {SOURCE: 0.0, APPEND: 1.0, LEAKY: LEAKY_BLIND_SHARE}
# (cell, measure) pairs predicted for every writer, in report order
TERMS: tuple[tuple[str, str], ...] = (
    (cell_system(SOURCE, "0"), "r"),
    (cell_system(SOURCE, "1"), "r"),
    (cell_system(APPEND, "0"), "a"),
    (cell_system(APPEND, "1"), "a"),
    (cell_system(LEAKY, "0"), "r"),
    (cell_system(LEAKY, "0"), "a"),
    (cell_system(LEAKY, "1"), "r"),
    (cell_system(LEAKY, "1"), "a"),
    (cell_system(APPEND, "0"), "delta yield"),
)
INTERACTION = "B×D"
INTERACTION_TERMS = (
    (cell_system(SOURCE, "1"), 1),
    (cell_system(APPEND, "1"), -1),
    (cell_system(SOURCE, "0"), -1),
    (cell_system(APPEND, "0"), 1),
)


@dataclass(frozen=True)
class GridCheck:
    writer: str
    kind: str
    shift: str
    cell: str  # a HoldMem cell, or "all" for B×D
    measure: str  # m, r, a, delta yield, B×D
    injected: float | None
    found: Estimate  # the measured value; its interval paired with the prediction
    informative: int  # item-times that can come out either way under the writer's rates
    alone: Estimate | None = None  # B×D: the measured contrast's own interval

    @property
    def testable(self) -> bool:
        return self.found.low is not None and self.informative >= MIN_ITEM_TIMES

    @property
    def within(self) -> bool | None:
        if self.injected is None or not self.testable:
            return None
        assert self.found.low is not None and self.found.high is not None
        return bool(self.found.low <= self.injected <= self.found.high)


@dataclass(frozen=True)
class Observed:
    """A writer's run beside its prediction, item-time by item-time."""

    right: np.ndarray
    yielded: np.ndarray
    predicted_right: np.ndarray
    predicted_yield: np.ndarray


def rates(writer: GridWriter, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The writer's error and overlook rate for each item-time's item group."""
    error = np.array([writer.error(g) for g in groups], dtype=np.float64)
    overlook = np.array([writer.overlook(g) for g in groups], dtype=np.float64)
    return error, overlook


def predict(
    writer: GridWriter, times: ItemTimes, corners: Corners
) -> tuple[np.ndarray, np.ndarray]:
    """Each item-time's probability of a right answer and of a delta yield under the writer."""
    error, overlook = rates(writer, times.group)
    overlooked = overlooked_throughout(overlook, times.chances, times.from_delta)
    return (
        predicted_right(corners, error, overlooked),
        predicted_yield(overlook, times.chances),
    )


def per_world(values: np.ndarray, mask: np.ndarray, world: np.ndarray, worlds: np.ndarray) -> Sums:
    """Sums of `values` and counts over the masked item-times, per world in `worlds` order."""
    index = np.searchsorted(worlds, world[mask])
    num = np.bincount(index, weights=values[mask].astype(np.float64), minlength=len(worlds))
    den = np.bincount(index, minlength=len(worlds)).astype(np.float64)
    return Sums(num, den)


def informative(probability: np.ndarray) -> int:
    return int(np.sum((probability > 0) & (probability < 1)))


def shifted(difference: Estimate, injected: float) -> Estimate:
    """A measured-minus-predicted estimate as the measured value: the prediction added back."""

    def add(value: float | None) -> float | None:
        return None if value is None else injected + value

    return Estimate(
        add(difference.estimate),
        add(difference.low),
        add(difference.high),
        difference.worlds,
        difference.n,
    )


def paired(measured: Sums, predicted: Sums, weights: np.ndarray) -> tuple[Estimate, float | None]:
    """The measured share with its interval paired with the prediction, and the prediction."""
    sums = {"measured": measured, "predicted": predicted}
    difference = studentized(
        sums, lambda v: v["measured"] - v["predicted"], weights, bounds=(-1.0, 1.0)
    )
    if difference.estimate is None:
        return difference, None
    injected = float(predicted.num.sum() / predicted.den.sum())
    return shifted(difference, injected), injected


def term_checks(
    writer: GridWriter,
    times: ItemTimes,
    seen: Observed,
    worlds: np.ndarray,
    weights: np.ndarray,
) -> list[GridCheck]:
    found: list[GridCheck] = []
    for shift in SHIFTS:
        for cell, measure in TERMS:
            mask = (times.shift == shift) & (times.system == cell)
            if measure == "r":
                mask &= times.detected
            elif measure == "a":
                mask &= ~times.detected
            if measure == "delta yield":
                values, predicted = seen.yielded, seen.predicted_yield
            else:
                values, predicted = seen.right, seen.predicted_right
            estimate, injected = paired(
                per_world(values, mask, times.world, worlds),
                per_world(predicted, mask, times.world, worlds),
                weights,
            )
            found.append(
                GridCheck(
                    writer.name, writer.kind, shift, cell, measure, injected, estimate,
                    informative(predicted[mask]),
                )
            )  # fmt: skip
        found.append(interaction(writer, times, seen, shift, worlds, weights))
    return found


def interaction(
    writer: GridWriter,
    times: ItemTimes,
    seen: Observed,
    shift: str,
    worlds: np.ndarray,
    weights: np.ndarray,
) -> GridCheck:
    """B×D measured, with its interval paired with the B×D the identity predicts, and its own."""
    measured: dict[str, Sums] = {}
    predicted: dict[str, Sums] = {}
    signs: dict[str, int] = {}
    count = 0
    for cell, sign in INTERACTION_TERMS:
        mask = (times.shift == shift) & (times.system == cell)
        measured[cell] = per_world(seen.right, mask, times.world, worlds)
        predicted[cell] = per_world(seen.predicted_right, mask, times.world, worlds)
        signs[cell] = sign
        count += informative(seen.predicted_right[mask])
    sums = {
        **{f"m:{c}": s for c, s in measured.items()},
        **{f"p:{c}": s for c, s in predicted.items()},
    }

    def gap(v: Values) -> np.ndarray:
        return np.add.reduce([signs[c] * (v[f"m:{c}"] - v[f"p:{c}"]) for c in signs])

    def contrast(v: Values) -> np.ndarray:
        return np.add.reduce([signs[c] * v[c] for c in signs])

    difference = studentized(sums, gap, weights, bounds=(-4.0, 4.0))
    alone = studentized(measured, contrast, weights, bounds=(-2.0, 2.0))
    injected = None
    if difference.estimate is not None:
        injected = float(
            sum(signs[c] * predicted[c].num.sum() / predicted[c].den.sum() for c in signs)
        )
        difference = shifted(difference, injected)
    return GridCheck(
        writer.name, writer.kind, shift, "all", INTERACTION, injected, difference, count, alone
    )


def missed_checks(
    times: ItemTimes, name: str, worlds: np.ndarray, weights: np.ndarray
) -> list[GridCheck]:
    """m of each detection against its known share, once: it is every writer's."""
    found: list[GridCheck] = []
    for shift in SHIFTS:
        for detection, known in KNOWN_MISSES.items():
            cell = cell_system(detection, "0")
            mask = (times.shift == shift) & (times.system == cell)
            sums = per_world(~times.detected, mask, times.world, worlds)
            estimate = studentized({"m": sums}, lambda v: v["m"], weights, bounds=(0.0, 1.0))
            found.append(
                GridCheck(name, "reference", shift, cell, "m", known, estimate, int(np.sum(mask)))
            )
    return found


@dataclass(frozen=True)
class GridRun:
    """One writer of the grid with its run's item-times."""

    writer: GridWriter
    times: ItemTimes


def corners_of(reference: ItemTimes, anchors: Sequence[GridRun]) -> Corners:
    """Each item-time's outcome under the reference and the anchor at each other corner."""
    at = {
        (a.writer.error(g), a.writer.overlook(g)): a.times.right.astype(np.float64)
        for a in anchors
        for g in [ITEM_GROUPS[0]]
    }
    for corner in ANCHOR_CORNERS:
        if corner not in at:
            raise MemshiftError(
                f"the grid needs an anchor at (error, overlook) = {corner}; run validate-grid"
            )
    wrong, blind, both = (at[corner] for corner in ANCHOR_CORNERS)
    return Corners(reference.right.astype(np.float64), wrong, blind, both)


def grid_checks(
    reference: GridRun,
    anchors: Sequence[GridRun],
    writers: Sequence[GridRun],
    resampling: Resampling,
) -> list[GridCheck]:
    """Every check of the grid: m once (from the reference run), then r, a, the delta yield and
    B×D of every drawn and labelled writer against what its rates predict."""
    times = reference.times
    for run in [*anchors, *writers]:
        check_aligned(times, run.times, run.writer.name)
    corners = corners_of(times, anchors)
    worlds = np.unique(times.world)
    weights = weight_matrix(worlds.tolist(), resampling, "worlds").astype(np.float64)
    found = missed_checks(times, reference.writer.name, worlds, weights)
    for run in writers:
        right, yielded = predict(run.writer, times, corners)
        seen = Observed(run.times.right, run.times.yielded, right, yielded)
        found += term_checks(run.writer, times, seen, worlds, weights)
    return found
